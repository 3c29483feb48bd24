import { afterAll, describe, expect, it } from 'vitest';
import { DescribePool, describeRecord } from '../../src/mime';
import type { VendorMessage } from '../../src/upstream/types';
import { richMessage } from './fixtures';

function messages(n: number): VendorMessage[] {
  return Array.from({ length: n }, (_, i) => ({ ...richMessage(), message_uid: `msg-${i}`, subject: `subject ${i} ü` }));
}

describe('DescribePool', () => {
  const pool = new DescribePool({ workers: 2, inlineBelow: 5, chunk: 7 });
  afterAll(() => pool.close());

  it('gives in worker threads the very rows describing inline gives, in order', async () => {
    const input = messages(30);
    const pooled = await pool.describe(input);
    const inline = input.map(describeRecord);
    expect(pooled.map((r) => r.messageUid)).toEqual(input.map((m) => m.message_uid));
    expect(pooled).toEqual(inline);
    expect(new Set(pooled.map((r) => r.summary)).size).toBe(30);
  });

  it('fails the batch when a message cannot be described, and keeps working', async () => {
    const bad = { ...richMessage(), message_uid: 'bad', attachments: 'not a list' } as unknown as VendorMessage;
    await expect(pool.describe([...messages(9), bad])).rejects.toThrow();
    expect((await pool.describe(messages(6))).length).toBe(6);
  });
});
