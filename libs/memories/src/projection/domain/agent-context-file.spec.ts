import { describe, expect, it } from 'vitest';
import { agentContextBlock, spliceAgentContext } from './agent-context-file';

const block = (body: string) =>
  `<!-- team-memory:begin project=github.com/acme/pay -->\n${body}\n<!-- team-memory:end -->\n`;
const cursor = (body: string) => `---\ndescription: "x"\nglobs:\nalwaysApply: true\n---\n\n${block(body)}`;

describe('spliceAgentContext', () => {
  it('writes the rendered file when there is none', () => {
    expect(spliceAgentContext(null, block('new'))).toBe(block('new'));
    expect(spliceAgentContext('  \n', cursor('new'))).toBe(cursor('new'));
  });

  it('replaces only the marker block and keeps what the team wrote around it', () => {
    const existing = `# Our repo\n\nBuild with make.\n\n${block('old')}\n## Other notes\nkeep me`;
    expect(spliceAgentContext(existing, block('new'))).toBe(
      `# Our repo\n\nBuild with make.\n\n${block('new')}\n## Other notes\nkeep me`,
    );
    expect(spliceAgentContext(block('old'), block('new'))).toBe(block('new'));
  });

  it('is unchanged when the block already holds the render', () => {
    const existing = `# Ours\n\n${block('same')}`;
    expect(spliceAgentContext(existing, block('same'))).toBe(existing);
  });

  it('keeps an edited Cursor front matter and replaces the block under it', () => {
    const edited = cursor('old').replace('globs:', 'globs: src/**');
    expect(spliceAgentContext(edited, cursor('new'))).toBe(cursor('new').replace('globs:', 'globs: src/**'));
  });

  it('adds the block at the end of a file that has none', () => {
    expect(spliceAgentContext('# Ours\nrules\n\n\n', block('new'))).toBe(`# Ours\nrules\n\n${block('new')}`);
  });

  it('takes markers as whole lines only, and refuses a block that is never closed', () => {
    const quoted = `mention <!-- team-memory:end --> inline\n${block('old')}`;
    expect(spliceAgentContext(quoted, block('new'))).toBe(
      `mention <!-- team-memory:end --> inline\n${block('new')}`,
    );
    expect(() => spliceAgentContext('<!-- team-memory:begin project=p -->\nno end\n', block('x'))).toThrow(
      /no "<!-- team-memory:end -->" line closes/,
    );
  });

  it('extracts the block of a rendered file', () => {
    expect(agentContextBlock(cursor('b'))).toBe(block('b'));
  });
});
