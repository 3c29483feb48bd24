import type { AttachmentMeta, MessageBody, Recipient } from '../upstream/types';
import { Rng, hash32, hex32 } from './rng';
import {
  ExplicitContent,
  StoredMessage,
  type MessageContent,
  type StoredAttachment,
  type TransportInfo,
} from './message';
import * as vocab from './corpus-vocab';

/**
 * The seeded corpus of the first mailbox. One sequential pass decides the compact envelope
 * (folders, threads, flags, dates); bodies, headers and attachment bytes are derived later
 * from (seed, seq) alone, so 100,000 messages cost a few tens of MB.
 */

type Kind = 'personal' | 'sent' | 'draft' | 'newsletter' | 'spam' | 'bounce' | 'complaint';

const day = 86_400_000;
const corpusSpanMs = 730 * day;
const chunkSize = 64 * 1024;
/** Salts that keep the derived random streams of one message independent. */
const salt = {
  structure: 0x5eed,
  body: 0xb0d1,
  attachment: 0xa77a,
  transport: 0x7e1e,
  messageId: 0x1d1d,
  thread: 0x7d7d,
  uid: 0x0d0d,
};

export function messageUid(seed: number, seq: number): string {
  return `m_${hex32(hash32(seed, seq, salt.uid))}${seq.toString(36)}`;
}

export function threadIdFor(seed: number, rootSeq: number): string {
  return `t_${hex32(hash32(seed, rootSeq, salt.thread))}${rootSeq.toString(36)}`;
}

export function messageIdFor(seed: number, seq: number, fromEmail: string): string {
  return `<${hex32(hash32(seed, seq, salt.messageId))}.${seq}@${fromEmail.split('@')[1] ?? 'sandbox.test'}>`;
}

export function attachmentIdFor(seed: number, seq: number, k: number): string {
  return `att_${hex32(hash32(seed, seq, k, salt.attachment))}_${k}`;
}

/** Display name the sandbox gives a mailbox: "alice@x" -> "Alice". */
export function displayName(address: string): string {
  const local = address.split('@')[0];
  return local.charAt(0).toUpperCase() + local.slice(1);
}

interface PlannedFile {
  name: string;
  mime: string;
  size: number;
  inline: boolean;
  /** Fixed text content (bounce and complaint reports); otherwise pseudo-random bytes. */
  fixed?: string;
}

const textual = (mime: string) => mime.startsWith('text/') || mime.startsWith('message/');

/** Pseudo-random file content of exactly `size` bytes, printable for text types. */
function* generatedBytes(seed: number, seq: number, k: number, size: number, text: boolean): Iterable<Buffer> {
  const rng = new Rng(hash32(seed, seq, k, salt.attachment, 1));
  for (let done = 0; done < size; done += chunkSize) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkSize, size - done));
    rng.fill(chunk);
    if (text) for (let i = 0; i < chunk.length; i++) chunk[i] = (done + i) % 73 === 72 ? 0x0a : 0x20 + (chunk[i] % 95);
    yield chunk;
  }
}

/** One corpus message's lazily derived content. */
class CorpusContent implements MessageContent {
  constructor(
    private readonly seed: number,
    private readonly seq: number,
    private readonly index: number,
    private readonly count: number,
    private readonly kind: Kind,
    private readonly envelope: {
      fromName: string;
      fromEmail: string;
      subject: string;
      receivedAt: number;
      owner: string;
    },
  ) {}

  private plan(): PlannedFile[] {
    const { index, kind } = this;
    if (kind === 'bounce') {
      return [
        {
          name: 'details.txt',
          mime: 'message/delivery-status',
          size: 0,
          inline: false,
          fixed:
            'Reporting-MTA: dns; mx.sandbox.test\nFinal-Recipient: rfc822; nobody@nowhere.example\n' +
            'Action: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\n',
        },
        {
          name: 'original.txt',
          mime: 'text/rfc822-headers',
          size: 0,
          inline: false,
          fixed: `From: ${this.envelope.owner}\nTo: nobody@nowhere.example\nSubject: Hello\n`,
        },
      ];
    }
    if (kind === 'complaint') {
      return [
        {
          name: 'feedback-report.txt',
          mime: 'message/feedback-report',
          size: 0,
          inline: false,
          fixed:
            'Feedback-Type: abuse\nUser-Agent: ExampleFBL/1.0\nVersion: 1\n' +
            `Original-Mail-From: <${this.envelope.owner}>\nSource-IP: 198.51.100.7\n`,
        },
      ];
    }
    if (index === 1) return [{ name: 'Rechnung-2024-0001.pdf', mime: 'application/pdf', size: 48_213, inline: false }];
    if (index === 2) return [{ name: 'logo.png', mime: 'image/png', size: 18_432, inline: true }];
    if (index === 3) return [{ name: 'leer.txt', mime: 'text/plain', size: 0, inline: false }];
    if (index === 7)
      return [
        {
          name: 'Präsentation Q3 📊.pptx',
          mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
          size: 3_407_872,
          inline: false,
        },
      ];
    if (this.count >= 500 && index === Math.floor(this.count / 2) + 3)
      return [{ name: 'backup.zip', mime: 'application/zip', size: 6_291_456, inline: false }];
    if (kind !== 'personal' && kind !== 'sent') return [];
    const rng = new Rng(hash32(this.seed, this.seq, salt.attachment));
    const files: PlannedFile[] = [];
    if (rng.chance(0.04))
      files.push({ name: `photo-${index}.jpg`, mime: 'image/jpeg', size: rng.int(5_000, 60_000), inline: true });
    if (rng.chance(0.08)) {
      for (let n = rng.int(1, 2); n > 0; n--) {
        const k = rng.pick(vocab.attachmentKinds);
        files.push({
          name: `${k.base}-${index}-${n}.${k.ext}`,
          mime: k.mime,
          size: rng.int(1_000, 400_000),
          inline: false,
        });
      }
    }
    return files;
  }

  private contentId(k: number): string {
    return `part${k}.${this.seq}@sandbox.test`;
  }

  attachments(): StoredAttachment[] {
    return this.plan().map((f, k) => {
      const fixed = f.fixed === undefined ? null : Buffer.from(f.fixed);
      const meta: AttachmentMeta = {
        attachment_id: attachmentIdFor(this.seed, this.seq, k),
        file_name: f.name,
        mime_type: f.mime,
        size_bytes: fixed ? fixed.length : f.size,
        inline: f.inline,
        content_id: f.inline ? this.contentId(k) : null,
        scan_status: 'clean',
        scan_engine: 'sandbox-av',
      };
      return {
        meta,
        chunks: () => (fixed ? [fixed] : generatedBytes(this.seed, this.seq, k, f.size, textual(f.mime))),
      };
    });
  }

  private paragraphs(rng: Rng): string[] {
    const e = this.envelope;
    switch (this.kind) {
      case 'bounce':
        return [
          'This is the mail system at host mx.sandbox.test.',
          "I'm sorry to have to inform you that your message could not be delivered to one or more recipients.",
          '<nobody@nowhere.example>: host mx.nowhere.example said: 550 5.1.1 User unknown',
        ];
      case 'complaint':
        return [
          'This is an email abuse report for an email message received from IP 198.51.100.7.',
          `A recipient marked a message from ${e.owner} as spam.`,
        ];
      case 'spam':
        return [
          'Congratulations! You have been selected.',
          'Click the link below to claim your reward before it expires.',
        ];
      case 'newsletter':
        return [
          `${e.subject} — the highlights of this issue.`,
          rng.pick(vocab.sentences),
          'You receive this because you subscribed.',
        ];
      default: {
        const greeting = rng.pick(['Hi,', 'Hallo,', 'こんにちは。', 'Hello there,']);
        const lines = [greeting];
        for (let n = rng.int(2, 4); n > 0; n--) lines.push(rng.pick(vocab.sentences));
        lines.push(`— ${e.fromName}`);
        return lines;
      }
    }
  }

  body(): MessageBody {
    const rng = new Rng(hash32(this.seed, this.seq, salt.body));
    const paras = this.paragraphs(rng);
    const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    let html = `<html><body>${paras.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}`;
    this.plan().forEach((f, k) => {
      if (f.inline) html += `<p><img src="cid:${this.contentId(k)}" alt="${escapeHtml(f.name)}"></p>`;
    });
    const external = this.kind === 'newsletter';
    if (external)
      html +=
        `<p><img src="https://cdn.news.example/banner-${this.seq}.png" alt="banner">` +
        '<a href="https://news.example/unsubscribe">Unsubscribe</a></p>';
    html += '</body></html>';
    return { html, text: paras.join('\n\n'), external_images: external };
  }

  transport(): TransportInfo {
    const rng = new Rng(hash32(this.seed, this.seq, salt.transport));
    const files = this.plan();
    const outbound = this.kind === 'sent' || this.kind === 'draft';
    const spam = this.kind === 'spam';
    const contentType =
      this.kind === 'bounce' || this.kind === 'complaint'
        ? 'multipart/report'
        : files.some((f) => !f.inline)
          ? 'multipart/mixed'
          : files.length
            ? 'multipart/related'
            : 'multipart/alternative';
    return {
      ipAddress: outbound ? '10.0.0.1' : `203.0.113.${rng.int(1, 254)}`,
      isTls: outbound || rng.chance(0.9),
      spf: !spam && rng.chance(0.97),
      dkim: !spam && rng.chance(0.95),
      dmarc: !spam && rng.chance(0.95),
      spamScore: spam ? 6 + rng.int(0, 30) / 10 : rng.int(0, 25) / 10,
      listUnsubscribe:
        this.kind === 'newsletter'
          ? `<mailto:unsubscribe@${this.envelope.fromEmail.split('@')[1]}>, ` +
            `<https://news.example/unsubscribe?u=${this.seq}>`
          : null,
      listId: this.kind === 'newsletter' ? `News <news.${this.envelope.fromEmail.split('@')[1]}>` : null,
      contentType,
      senderZoneMinutes: rng.pick([0, 60, 120, -300, 330, 540]),
    };
  }
}

interface OpenThread {
  rootSeq: number;
  subject: string;
  contact: vocab.Person;
  folder: string;
  refs: string[];
  lastInbound: boolean;
}

export interface CorpusParams {
  seed: number;
  owner: string;
  count: number;
  /** Newest messages are just before this instant; the oldest about two years earlier. */
  anchor: number;
  /** seq of the first message; uids derive from seq. */
  firstSeq: number;
}

const newThreadWeights = { INBOX: 60, Archive: 12, Sent: 10, newsletter: 8, Trash: 4, Spam: 4, Drafts: 2 } as const;

export function generateCorpus(p: CorpusParams): StoredMessage[] {
  const rng = new Rng(hash32(p.seed, salt.structure));
  const owner: Recipient[] = [{ email: p.owner, name: displayName(p.owner) }];
  const none: Recipient[] = [];
  const step = corpusSpanMs / Math.max(1, p.count);
  const start = p.anchor - corpusSpanMs;
  const bounceAt = p.count >= 3 ? Math.floor(p.count * 0.37) : -1;
  const complaintAt = p.count >= 3 ? Math.floor(p.count * 0.71) : -1;
  const open: OpenThread[] = [];
  const out: StoredMessage[] = new Array(p.count);

  for (let i = 0; i < p.count; i++) {
    const seq = p.firstSeq + i;
    const receivedAt = Math.floor(start + i * step + rng.next() * step * 0.5);
    let kind: Kind = 'personal';
    let folder = 'INBOX';
    let from: vocab.Person;
    let to = owner;
    let subject: string;
    let references: string[] = [];
    let rootSeq = seq;

    const thread =
      i >= 8 && i !== bounceAt && i !== complaintAt && open.length > 0 && rng.chance(0.35) ? rng.pick(open) : null;
    if (i === bounceAt) {
      kind = 'bounce';
      from = { name: 'Mail Delivery System', email: 'MAILER-DAEMON@mx.sandbox.test' };
      subject = 'Undelivered Mail Returned to Sender';
    } else if (i === complaintAt) {
      kind = 'complaint';
      from = { name: 'Feedback Loop', email: 'fbl@feedback.mailsystems.example' };
      subject = 'Abuse report: complaint about a message from 198.51.100.7';
    } else if (thread) {
      const outbound = thread.lastInbound ? rng.chance(0.65) : rng.chance(0.2);
      kind = outbound ? 'sent' : 'personal';
      folder = outbound ? 'Sent' : thread.folder;
      from = outbound ? { name: owner[0].name ?? p.owner, email: p.owner } : thread.contact;
      if (outbound) to = [{ email: thread.contact.email, name: thread.contact.name }];
      subject = `Re: ${thread.subject}`;
      references = thread.refs.slice(-10);
      rootSeq = thread.rootSeq;
    } else {
      const pick = i < 8 ? 'INBOX' : rng.weighted(newThreadWeights);
      subject = rng.pick(vocab.topics);
      from = rng.pick(vocab.contacts);
      if (pick === 'newsletter') {
        kind = 'newsletter';
        from = rng.pick(vocab.newsletters);
        subject = rng.pick(vocab.newsletterTopics);
      } else if (pick === 'Spam') {
        kind = 'spam';
        folder = 'Spam';
        from = rng.pick(vocab.spammers);
        subject = rng.pick(vocab.spamTopics);
      } else if (pick === 'Sent' || pick === 'Drafts') {
        kind = pick === 'Sent' ? 'sent' : 'draft';
        folder = pick;
        to = [{ email: from.email, name: from.name }];
        from = { name: owner[0].name ?? p.owner, email: p.owner };
      } else {
        folder = pick;
      }
    }

    const messageId = messageIdFor(p.seed, seq, from.email);
    const inReplyTo = references.length ? references[references.length - 1] : null;
    const cc = kind === 'personal' && rng.chance(0.1) ? [{ email: rng.pick(vocab.contacts).email }] : none;
    const content = new CorpusContent(p.seed, seq, i, p.count, kind, {
      fromName: from.name,
      fromEmail: from.email,
      subject,
      receivedAt,
      owner: p.owner,
    });
    const msg = new StoredMessage(
      messageUid(p.seed, seq),
      seq,
      threadIdFor(p.seed, rootSeq),
      messageId,
      folder,
      {
        fromName: from.name,
        fromEmail: from.email,
        to,
        cc,
        bcc: none,
        subject,
        references,
        inReplyTo,
        // mailing lists answer from an address nobody reads
        replyTo: kind === 'newsletter' ? `noreply@${from.email.split('@')[1]}` : null,
      },
      receivedAt,
      content,
    );
    const own = kind === 'sent' || kind === 'draft';
    msg.isRead = own || rng.chance(i < p.count * 0.85 ? 0.92 : 0.35);
    msg.isStarred = kind === 'personal' && rng.chance(0.07);
    msg.isImportant = (kind === 'personal' || kind === 'bounce') && rng.chance(0.1);
    if (kind === 'personal' && rng.chance(0.15)) msg.labels = [rng.pick(vocab.labelNames)];
    if (kind === 'personal' && rng.chance(0.005)) msg.snoozedUntil = p.anchor + rng.int(1, 14) * day;
    out[i] = msg;

    if (thread) {
      thread.refs.push(messageId);
      thread.lastInbound = !own;
      if (thread.refs.length >= 8) open.splice(open.indexOf(thread), 1);
    } else if (kind === 'personal' || kind === 'sent') {
      open.push({
        rootSeq: seq,
        subject,
        contact: own ? { name: to[0].name ?? to[0].email, email: to[0].email } : from,
        folder: folder === 'Sent' ? 'INBOX' : folder,
        refs: [messageId],
        lastInbound: !own,
      });
      if (open.length > 12) open.shift();
    }
  }
  return out;
}

/** Content for messages that arrive while the sandbox runs (inject, send, release). */
export function explicitContent(args: {
  html: string;
  text: string;
  files: Array<{ meta: AttachmentMeta; data: Buffer }>;
  outbound: boolean;
  listUnsubscribe?: string | null;
}): ExplicitContent {
  const hasFiles = args.files.some((f) => !f.meta.inline);
  return new ExplicitContent(args.html, args.text, args.files, {
    ipAddress: args.outbound ? '10.0.0.1' : '203.0.113.10',
    isTls: true,
    spf: true,
    dkim: true,
    dmarc: true,
    spamScore: 0.1,
    listUnsubscribe: args.listUnsubscribe ?? null,
    listId: null,
    senderZoneMinutes: 0,
    contentType: hasFiles ? 'multipart/mixed' : args.files.length ? 'multipart/related' : 'multipart/alternative',
  });
}
