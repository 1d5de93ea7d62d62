import { describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy';

describe('AddressPolicy', () => {
  const strict = new AddressPolicy([]);

  it('allows public unicast addresses, v4 and v6', () => {
    expect(strict.refusal('93.184.216.34')).toBeNull();
    expect(strict.refusal('2606:2800:220:1:248:1893:25c8:1946')).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.8', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::5', 'uniqueLocal'],
    ['::', 'unspecified'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(strict.refusal(address)).toBe(range);
  });

  it('allows exactly the networks an operator names', () => {
    const policy = new AddressPolicy(['10.20.0.0/16', '127.0.0.1/32', 'fd00::/8']);
    expect(policy.refusal('10.20.3.4')).toBeNull();
    expect(policy.refusal('10.21.0.1')).toBe('private');
    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('127.0.0.2')).toBe('loopback');
    expect(policy.refusal('fd12::1')).toBeNull();
    expect(policy.refusal('::ffff:10.20.0.9')).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(strict.refusal('example.com')).toBe('not an IP address');
  });
});
