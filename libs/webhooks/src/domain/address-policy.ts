import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may be sent to: public unicast addresses, and those of the networks
 * an operator allowed (WEBHOOK_ALLOWED_NETWORKS). Loopback, private, link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, unique-local, multicast, unspecified and reserved ranges are
 * refused otherwise; an IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export class AddressPolicy {
  private readonly allowed: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  constructor(allowedNetworks: readonly string[]) {
    this.allowed = allowedNetworks.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** Null when `address` may be used; otherwise the range it is in (for the refusal's message). */
  refusal(address: string): string | null {
    if (!ipaddr.isValid(address)) return 'not an IP address';
    let parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    }
    for (const [network, bits] of this.allowed) {
      if (network.kind() === parsed.kind() && parsed.match(network, bits)) return null;
    }
    const range = parsed.range();
    return range === 'unicast' ? null : range;
  }
}
