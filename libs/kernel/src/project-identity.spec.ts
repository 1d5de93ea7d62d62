import { describe, expect, it } from 'vitest';
import { normaliseGitRemote, projectIdentity, remoteWithoutCredentials } from './project-identity';

describe('normaliseGitRemote', () => {
  it.each([
    'git@github.com:o/r.git',
    'git@github.com:o/r',
    'https://github.com/o/r',
    'https://github.com/o/r.git',
    'https://github.com/o/r/',
    'http://github.com/o/r',
    'ssh://git@github.com/o/r',
    'ssh://git@github.com:22/o/r.git',
    'git+ssh://git@github.com/o/r.git',
    'git://github.com/o/r.git',
    'https://user:token@github.com/o/r.git',
    'https://GitHub.com/O/R',
    '  git@github.com:o/r.git\n',
  ])('%s is github.com/o/r', (remote) => {
    expect(normaliseGitRemote(remote)).toBe('github.com/o/r');
  });

  it('keeps nested groups', () => {
    expect(normaliseGitRemote('git@gitlab.example.com:group/sub/repo.git')).toBe(
      'gitlab.example.com/group/sub/repo',
    );
    expect(normaliseGitRemote('https://gitlab.example.com/group/sub/repo')).toBe(
      'gitlab.example.com/group/sub/repo',
    );
  });

  it.each([
    undefined,
    null,
    '',
    '   ',
    '/home/me/repo',
    'file:///home/me/repo',
    'C:\\repo',
    'atlas',
    'https://github.com/',
  ])('%j is no remote', (remote) => {
    expect(normaliseGitRemote(remote)).toBeNull();
  });
});

describe('projectIdentity', () => {
  it('takes the explicit project over the remote', () => {
    expect(projectIdentity({ project: 'atlas', gitRemote: 'git@github.com:o/r.git' })).toBe('atlas');
  });

  it('normalises an explicit project that is itself a remote', () => {
    expect(projectIdentity({ project: 'git@github.com:o/r.git' })).toBe('github.com/o/r');
  });

  it('derives the project from the remote, or has none', () => {
    expect(projectIdentity({ gitRemote: 'https://github.com/o/r' })).toBe('github.com/o/r');
    expect(projectIdentity({ project: '  ', gitRemote: undefined })).toBeNull();
    expect(projectIdentity({})).toBeNull();
  });
});

describe('remoteWithoutCredentials', () => {
  it('drops user and token from a URL remote and leaves scp-like remotes alone', () => {
    expect(remoteWithoutCredentials('https://user:ghp_token@github.com/o/r.git')).toBe(
      'https://github.com/o/r.git',
    );
    expect(remoteWithoutCredentials('git@github.com:o/r.git')).toBe('git@github.com:o/r.git');
    expect(remoteWithoutCredentials('ssh://git@github.com/o/r')).toBe('ssh://git@github.com/o/r');
    expect(remoteWithoutCredentials('ssh://git:secret@github.com/o/r')).toBe('ssh://github.com/o/r');
  });
});
