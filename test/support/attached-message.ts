import { control, mailbox, type Harness } from './bridge-harness';

/** 40,000 bytes holding every byte value, NULs included: an attachment no text decoding keeps whole. */
export const attachmentBytes = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7) % 256));

/** Injects into the vendor's INBOX a message from Bob with `bytes` as its one attachment; its Message-ID. */
export async function injectAttachedMessage(h: Harness, bytes: Buffer = attachmentBytes): Promise<string> {
  const { message_id } = await control<{ message_id: string }>(h.sandbox, 'POST', '/inject', {
    mailbox,
    message: {
      from: 'Bob <bob@example.com>',
      subject: 'The figures',
      text: 'Attached.',
      attachments: [
        { filename: 'figures.bin', contentType: 'application/octet-stream', content: bytes.toString('base64') },
      ],
    },
  });
  return message_id;
}
