import { readTranscriptLine, TRANSCRIPT_LIMITS, type TranscriptEvent } from './claude-code-transcript';
import { splitLines } from './json-lines';

/** What an import learnt about the session from the lines read so far. */
export interface TranscriptFacts {
  sessionId: string | null;
  cwd: string | null;
  gitBranch: string | null;
  /** Earliest and latest entry times (ISO). */
  firstAt: string | null;
  lastAt: string | null;
  /** The latest summary entry. */
  summary: string | null;
}

export interface TranscriptCounts {
  /** Non-blank lines read. */
  lines: number;
  /** Lines that are not transcript entries (not JSON, not an entry, over the line cap). */
  skipped: number;
  /** Entries that hold nothing a session keeps (system, file-history-snapshot, thinking only, …). */
  ignored: number;
}

/** An event with the time it keeps: its entry's, else the previous entry's, else none yet. */
export interface TimedTranscriptEvent extends TranscriptEvent {
  readonly at: string | null;
}

/**
 * Reads a transcript stream entry by entry, yielding its events in order while it records the
 * session's facts and the line counts. Nothing but the current line is held.
 */
export class TranscriptReading {
  readonly facts: TranscriptFacts = {
    sessionId: null,
    cwd: null,
    gitBranch: null,
    firstAt: null,
    lastAt: null,
    summary: null,
  };
  readonly counts: TranscriptCounts = { lines: 0, skipped: 0, ignored: 0 };
  private previousAt: string | null = null;

  async *events(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<TimedTranscriptEvent> {
    for await (const line of splitLines(body, TRANSCRIPT_LIMITS.maxLineBytes)) {
      if ('text' in line && line.text.trim() === '') continue;
      this.counts.lines += 1;
      if (!('text' in line)) {
        this.counts.skipped += 1;
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        this.counts.skipped += 1;
        continue;
      }
      const entry = readTranscriptLine(value, line.text);
      if (entry.type === 'bad') this.counts.skipped += 1;
      else if (entry.type === 'ignored') this.counts.ignored += 1;
      else if (entry.type === 'summary') this.facts.summary = entry.summary;
      else {
        const facts = this.facts;
        facts.sessionId ??= entry.sessionId;
        facts.cwd ??= entry.cwd;
        facts.gitBranch ??= entry.gitBranch;
        if (entry.timestamp !== null) {
          this.previousAt = entry.timestamp;
          if (facts.firstAt === null || Date.parse(entry.timestamp) < Date.parse(facts.firstAt))
            facts.firstAt = entry.timestamp;
          if (facts.lastAt === null || Date.parse(entry.timestamp) > Date.parse(facts.lastAt))
            facts.lastAt = entry.timestamp;
        }
        if (entry.events.length === 0) this.counts.ignored += 1;
        for (const event of entry.events) yield { ...event, at: entry.timestamp ?? this.previousAt };
      }
    }
  }
}
