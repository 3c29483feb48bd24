import { afterAll, beforeAll } from 'vitest';
import { mailbox, startHarness, type Harness, type HarnessOptions } from './bridge-harness';
import { rawSession, type RawSession } from './raw-session';

/**
 * Shared setup of the conformance tests (test/imap/conformance, one file per RFC area): one
 * sandbox + bridge per file, and raw sessions whose answers are compared with what the RFC
 * (and Dovecot) answers.
 */
export interface Conformance {
  h: Harness;
  /** A new logged-in raw session; with `folder`, that folder is selected. */
  session(folder?: string): Promise<RawSession>;
}

export function useConformance(opts: HarnessOptions = {}): Conformance {
  const ctx = {
    async session(folder?: string) {
      const s = await rawSession(ctx.h.bridge.ports.imap, mailbox, ctx.h.password);
      if (folder) {
        const selected = await s.run(`SELECT ${folder}`);
        if (!/^t\d+ OK/m.test(selected)) throw new Error(`SELECT ${folder} failed: ${selected}`);
      }
      return s;
    },
  } as Conformance;
  beforeAll(async () => {
    ctx.h = await startHarness({ sandbox: { messages: 20 }, ...opts });
  });
  afterAll(async () => {
    await ctx.h?.close();
  });
  return ctx;
}

/** The tagged status line of a command's answer. */
export function status(answer: string): string {
  return /^t\d+ ((?:OK|NO|BAD)[^\r\n]*)/m.exec(answer)?.[1] ?? `no tagged answer in: ${answer}`;
}

/** The untagged lines of a command's answer, without their "* ". */
export function untagged(answer: string): string[] {
  return answer
    .split('\r\n')
    .filter((l) => l.startsWith('* '))
    .map((l) => l.slice(2));
}
