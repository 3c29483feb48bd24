import type Mail from 'nodemailer/lib/mailer';
import type { MailAttachment } from '../domain/message';
import type { ComposeOptions } from './compose';
import { rfc2231ContentType } from './compose';
import { kept } from '../util/lists';
import { Memo } from '../util/memo';

/**
 * The MIME tree nodemailer's MailComposer makes of compose.ts's options, without building its
 * MimeNodes: which parts, nested how (mixed, alternative, related), each with the header
 * fields MailComposer sets on its node, in the order it sets them. header-block.ts then writes
 * them as MimeNode.buildHeaders() does. Covers the options compose.ts gives (strings and
 * Buffers for content, every attachment with its type, disposition and transfer encoding);
 * test/mime/model-description.test.ts compares the result with MailComposer's for every corpus
 * message.
 */

/** One header field as MimeNode keeps it before writing: normalized key, unencoded value. */
export interface HeaderField {
  key: string;
  value: unknown;
}

export interface LaidOutPart {
  /** MimeNode's node id: creation order, the root 1. Names multipart boundaries. */
  id: number;
  filename?: string;
  /** Leaves only: the content as given (string or Buffer). */
  content?: string | Buffer;
  headers: HeaderField[];
  children: LaidOutPart[];
  /** The vendor attachment the part holds, when it holds one. */
  attachment?: MailAttachment;
  root: boolean;
}

/** A body or attachment as MailComposer takes it; made by element() only, so all have one shape. */
interface Element {
  contentType: string;
  content: string | Buffer;
  filename: string | undefined;
  cid: string | undefined;
  contentDisposition: string | undefined;
  contentTransferEncoding: string | undefined;
}

function element(contentType: string, content: string | Buffer, attachment?: Mail.Attachment): Element {
  return {
    contentType,
    content,
    filename: attachment?.filename || undefined,
    cid: attachment?.cid,
    contentDisposition: attachment?.contentDisposition,
    contentTransferEncoding: attachment?.contentTransferEncoding as string | undefined,
  };
}

/** Normalized keys by key: compose.ts gives a few keys only, for every message. */
const normalizedKeys = new Memo<string, string>(1_000);

/** MimeNode._normalizeHeaderKey: Camel-Case, with MIME and the -ID/-MD5/-SPF/-FBL endings upper case. */
export function normalizeHeaderKey(key: string): string {
  let normalized = normalizedKeys.get(key);
  if (normalized === undefined) {
    normalized = normalizedKey(key);
    normalizedKeys.set(key, normalized);
  }
  return normalized;
}

function normalizedKey(key: string): string {
  return key
    .replace(/[\s\x00-\x20\x7f:]/g, '')
    .toLowerCase()
    .replace(/^X-SMTPAPI$|^(MIME|DKIM|ARC|BIMI)\b|^OTP(?=-Token$)|^[a-z]|-(SPF|FBL|ID|MD5)$|-[a-z]/gi, (c) =>
      c.toUpperCase(),
    )
    .replace(/^Content-Features$/i, 'Content-features');
}

/** MimeNode.setHeader: replaces the first field of the key in place (dropping the others), else appends. */
export function setHeader(headers: HeaderField[], key: string, value: unknown): void {
  const at = headers.findIndex((h) => h.key === key);
  if (at < 0) {
    headers.push({ key, value });
    return;
  }
  headers[at] = { key, value };
  for (let i = headers.length - 1; i > at; i--) if (headers[i].key === key) headers.splice(i, 1);
}

export function getHeader(headers: readonly HeaderField[], key: string): unknown {
  return headers.find((h) => h.key === key)?.value;
}

/** The root's fields MailComposer sets from the options, in its order. */
const rootFields: Array<[option: keyof Mail.Options, key: string]> = [
  ['from', 'From'],
  ['sender', 'Sender'],
  ['to', 'To'],
  ['cc', 'Cc'],
  ['bcc', 'Bcc'],
  ['replyTo', 'Reply-To'],
  ['inReplyTo', 'In-Reply-To'],
  ['references', 'References'],
  ['subject', 'Subject'],
  ['messageId', 'Message-ID'],
  ['date', 'Date'],
];

class Layout {
  private nextId = 1;

  constructor(
    private readonly compose: ComposeOptions,
    private readonly htmlNode: Element | undefined,
  ) {}

  /**
   * Every part has every field, in one order, absent ones undefined: header-block.ts,
   * model-tree.ts and describe.ts read them part after part, and a part of another shape met
   * after V8 optimized them (the first attachment after a run of plain messages) would send
   * them back to the interpreter and the compiler, once for each shape, in every new describe
   * worker.
   */
  node(contentType: string, children: LaidOutPart[] = [], filename?: string): LaidOutPart {
    const id = this.nextId++;
    return {
      id,
      filename: filename || undefined,
      content: undefined,
      headers: [{ key: 'Content-Type', value: contentType }],
      children,
      attachment: undefined,
      root: id === 1,
    };
  }

  /** MailComposer._createContentNode */
  content(element: Element): LaidOutPart {
    const part = this.node(element.contentType, [], element.filename);
    if (element.cid) setHeader(part.headers, 'Content-ID', `<${element.cid.replace(/[<>]/g, '')}>`);
    if (element.contentTransferEncoding)
      setHeader(part.headers, 'Content-Transfer-Encoding', element.contentTransferEncoding);
    if (!/^text\//i.test(element.contentType) || element.contentDisposition)
      setHeader(
        part.headers,
        'Content-Disposition',
        element.contentDisposition ?? (element.cid && /^image\//i.test(element.contentType) ? 'inline' : 'attachment'),
      );
    part.content = element.content || '';
    part.attachment = Buffer.isBuffer(element.content)
      ? this.compose.attachmentContents.get(element.content)
      : undefined;
    if (this.compose.composition) {
      const prepared = rfc2231ContentType(getHeader(part.headers, 'Content-Type'), part.filename);
      if (prepared) setHeader(part.headers, 'Content-Type', prepared);
    }
    return part;
  }

  /** A multipart node; its children are made after it (node ids follow creation order). */
  multipart(contentType: string, children: () => LaidOutPart[]): LaidOutPart {
    const part = this.node(contentType);
    part.children.push(...children());
    return part;
  }

  related(related: Element[]): LaidOutPart {
    const html = this.htmlNode as Element;
    return this.multipart('multipart/related; type="text/html"', () => [
      this.content(html),
      ...related.map((e) => this.content(e)),
    ]);
  }
}

function alternativesOf(options: Mail.Options): Element[] | null {
  const out: Element[] = [];
  if (options.text) out.push(element('text/plain; charset=utf-8', options.text as string));
  if (options.html) out.push(element('text/html; charset=utf-8', options.html as string));
  for (const a of options.alternatives ?? []) out.push(element(a.contentType as string, (a.content as string) || ''));
  return out.every((e) => typeof e.content === 'string' && typeof e.contentType === 'string') ? out : null;
}

function attachmentsOf(options: Mail.Options): Element[] | null {
  const out: Element[] = [];
  for (const a of options.attachments ?? []) {
    if (!a.filename || !a.contentType || !a.contentDisposition || !a.contentTransferEncoding) return null;
    if (!Buffer.isBuffer(a.content)) return null;
    out.push(element(a.contentType, a.content, a));
  }
  return out;
}

/** MailComposer.compile() for compose.ts's options: the tree, or null for options it does not lay out. */
export function mimeLayout(compose: ComposeOptions): LaidOutPart | null {
  const { options } = compose;
  const alternatives = alternativesOf(options);
  const attachments = attachmentsOf(options);
  if (!alternatives || !attachments) return null;
  const htmlNode = alternatives.filter((a) => /^text\/html\b/i.test(a.contentType)).pop();
  const attached = htmlNode ? kept(attachments, (a) => !a.cid) : attachments;
  const related = htmlNode ? kept(attachments, (a) => !!a.cid) : [];
  const useRelated = !!(htmlNode && related.length);
  const useAlternative = alternatives.length > 1;
  const useMixed = attached.length > 1 || (alternatives.length > 0 && attached.length === 1);
  const layout = new Layout(compose, htmlNode);
  const alternative = () =>
    layout.multipart('multipart/alternative', () =>
      alternatives.map((a) => (useRelated && a === htmlNode ? layout.related(related) : layout.content(a))),
    );
  let root: LaidOutPart;
  if (useMixed)
    root = layout.multipart('multipart/mixed', () => [
      ...(useAlternative ? [alternative()] : useRelated ? [layout.related(related)] : []),
      ...[...(useAlternative ? [] : alternatives), ...attached]
        .filter((e) => !useRelated || e !== htmlNode)
        .map((e) => layout.content(e)),
    ]);
  else if (useAlternative) root = alternative();
  else if (useRelated) root = layout.related(related);
  else root = layout.content([...alternatives, ...attached][0] ?? element('text/plain', ''));
  if (options.headers) {
    if (Array.isArray(options.headers) || typeof options.headers !== 'object') return null;
    for (const [key, value] of Object.entries(options.headers)) {
      if (typeof value !== 'string') return null;
      root.headers.push({ key: normalizeHeaderKey(key), value });
    }
  }
  for (const [option, key] of rootFields) if (options[option]) setHeader(root.headers, key, options[option]);
  return root;
}
