import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { control, mailbox, startHarness, type Harness } from '../support/bridge-harness';
import { ManualClock } from '../support/manual-clock';
import { type Wire, wire } from '../support/wire';
import type { VendorMessage } from '../../src/upstream/types';

/** A raw IMAP conversation: send a line, collect output until the tagged answer (woken by each chunk). */
class RawImap {
  private constructor(private readonly w: Wire) {}

  static async connect(port: number): Promise<RawImap> {
    const raw = new RawImap(await wire(port));
    await raw.until(/^\* OK/m);
    return raw;
  }

  until(pattern: RegExp): Promise<string> {
    return this.w.until(pattern, 20_000);
  }

  async command(tag: string, line: string): Promise<string> {
    await this.w.write(`${tag} ${line}\r\n`);
    return this.until(new RegExp(`^${tag} (OK|NO|BAD)`, 'm'));
  }

  send(data: string): void {
    void this.w.write(data);
  }

  close(): void {
    this.w.close();
  }
}

let h: Harness;
/** The retries' backoff during the outage: no real second waited out. */
const vendorClock = new ManualClock();

beforeAll(async () => {
  // the bridge believes the flag command is called flag_v9: the sandbox does not know it
  h = await startHarness({ config: { assumptions: { commands: { flag: { name: 'flag_v9' } } } }, vendorClock });
});

afterAll(async () => {
  await h?.close();
  vendorClock.stop();
});

describe('bad input and vendor failures', () => {
  test('malformed commands get BAD and the session goes on', async () => {
    const c = await RawImap.connect(h.bridge.ports.imap);
    expect(await c.command('a1', 'FROBNICATE now')).toMatch(/^a1 BAD/m);
    expect(await c.command('a2', 'LOGIN')).toMatch(/^a2 BAD/m);
    expect(await c.command('a3', `LOGIN ${mailbox} "${h.password}"`)).toMatch(/^a3 OK/m);
    expect(await c.command('a4', 'FETCH 1:* (FLAGS)')).toMatch(/^a4 BAD/m); // not selected
    expect(await c.command('a5', 'SELECT INBOX')).toMatch(/^a5 OK/m);
    expect(await c.command('a6', 'FETCH 1 (NOSUCHITEM)')).toMatch(/^a6 BAD/m);
    expect(await c.command('a7', 'NOOP')).toMatch(/^a7 OK/m);
    c.close();
  });

  test('an oversized literal is refused without reading it', async () => {
    const c = await RawImap.connect(h.bridge.ports.imap);
    expect(await c.command('b1', `LOGIN ${mailbox} "${h.password}"`)).toMatch(/^b1 OK/m);
    // selected, so SEARCH may run and only the literal's size is wrong
    expect(await c.command('b1s', 'SELECT INBOX')).toMatch(/^b1s OK/m);
    c.send('b2 SEARCH SUBJECT {99999999}\r\n');
    expect(await c.until(/^b2 (NO|BAD)/m)).toMatch(/too large|TOOBIG|Literal/i);
    expect(await c.command('b3', 'NOOP')).toMatch(/^b3 OK/m);
    c.close();
  });

  test('a command the vendor does not have becomes NO [CANNOT] and changes nothing', async () => {
    const starred = async () => {
      const { messages } = await control<{ messages: VendorMessage[] }>(
        h.sandbox,
        'GET',
        `/messages?mailbox=${encodeURIComponent(mailbox)}&folder=INBOX`,
      );
      return messages.filter((m) => m.is_starred).map((m) => m.message_uid);
    };
    const before = await starred();
    const c = await RawImap.connect(h.bridge.ports.imap);
    await c.command('c1', `LOGIN ${mailbox} "${h.password}"`);
    await c.command('c2', 'SELECT INBOX');
    expect(await c.command('c3', 'FETCH 1 (FLAGS)')).not.toMatch(/\\Flagged/);
    const answer = await c.command('c4', 'STORE 1 +FLAGS (\\Flagged)');
    expect(answer).toMatch(/^c4 NO \[CANNOT\] .*does not offer/m);
    expect(await c.command('c5', 'FETCH 1 (FLAGS)')).not.toMatch(/\\Flagged/);
    expect(await starred()).toEqual(before);
    c.close();
  });

  test('vendor outage gives NO [UNAVAILABLE] with a reason, and recovery works', async () => {
    const c = await RawImap.connect(h.bridge.ports.imap);
    await c.command('d1', `LOGIN ${mailbox} "${h.password}"`);
    h.sandbox.setFaults({ unavailableRate: 1 });
    try {
      expect(await c.command('d2', 'SELECT Archive')).toMatch(/^d2 NO \[UNAVAILABLE\] .*temporarily unavailable/m);
    } finally {
      h.sandbox.setFaults({});
    }
    expect(await c.command('d3', 'SELECT Archive')).toMatch(/^d3 OK/m);
    c.close();
  });
});
