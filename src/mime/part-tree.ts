import parse from '@mailbridge/imap-core/lib/indexer/parse-mime-tree';
import { parsedFields, plainFields } from './header-fields';
import type { MimeTreeNode } from './imap-indexer';
import { Memo } from '../util/memo';

/**
 * The indexer's MIME tree of a message given as its written parts (each part's header block
 * and encoded body), instead of serializing the message and parsing the bytes back: the same
 * tree, for a fraction of the work, since describing runs for every message a sync brings.
 * Header lines go through imap-core's own header parsing, so parsedHeader, ENVELOPE and
 * BODYSTRUCTURE follow the parser's rules by construction; bodies get the sizes and line counts
 * the parser would find, which holds while every line break in them is CRLF and no line is a
 * boundary delimiter. Anything else answers null, and the caller parses the bytes.
 * The parts come from nodemailer's tree (composed-tree.ts) or the message model (model-tree.ts).
 */

/** A part as written into the message: what serializeMimeNode (compose.ts) writes of a node. */
export interface WrittenPart {
  /**
   * The header block without the blank line after it: its fields, each folded (CRLF inside),
   * or the whole block as one string (composed-tree.ts).
   */
  fields: readonly string[];
  /** The body in its transfer encoding (nothing for a multipart). */
  body: Buffer;
  multipart: boolean;
  boundary: unknown;
  children: readonly PartSource[];
}

/** A part, written when its turn comes (nodemailer decides a node's boundary while writing its header). */
export interface PartSource {
  write(): WrittenPart;
}

const parser = new parse.MIMEParser('');
const crlf = Buffer.from('\r\n');

/** CRLF pairs in `b`, or -1 when `b` holds a CR or LF outside one (the parser would rewrite it). */
function crlfCount(b: Buffer): number {
  let pairs = 0;
  for (let i = b.indexOf(0x0d); i !== -1; i = b.indexOf(0x0d, i + 2)) {
    if (b[i + 1] !== 0x0a) return -1;
    pairs++;
  }
  let lf = 0;
  for (let i = b.indexOf(0x0a); i !== -1; i = b.indexOf(0x0a, i + 1)) lf++;
  return lf === pairs ? pairs : -1;
}

/** Whether a line of `body` could be read as a delimiter of an enclosing multipart. */
function holdsDelimiter(body: Buffer, boundaries: readonly string[]): boolean {
  return boundaries.some((b) => body.includes(`--${b}`, 0, 'latin1'));
}

/**
 * Parsed header blocks of parts below the root, by their text: most repeat from message to
 * message (a text part's type and transfer encoding). Shared between the trees that describe
 * messages, which only read them.
 */
const partHeaders = new Memo<string, Pick<MimeTreeNode, 'header' | 'parsedHeader' | 'multipart' | 'boundary'>>(1_000);

function fastHeader(
  fields: readonly string[],
): Pick<MimeTreeNode, 'header' | 'parsedHeader' | 'multipart' | 'boundary'> {
  const tree: MimeTreeNode = {
    header: fields.slice(),
    parsedHeader: parsedFields(fields),
    multipart: false,
    boundary: false,
  };
  parser._node = tree as typeof parser._node;
  parser.processContentType();
  return tree;
}

function headerOf(fields: readonly string[], fast: boolean, root: boolean): MimeTreeNode | null {
  if (fast && plainFields(fields)) {
    if (root) return { ...fastHeader(fields), body: Buffer.alloc(0) };
    const text = fields.join('\n');
    let known = partHeaders.get(text);
    if (!known) {
      known = fastHeader(fields);
      partHeaders.set(text, known);
    }
    return { ...known, body: Buffer.alloc(0) };
  }
  const text = Buffer.from(fields.join('\r\n'), 'utf8').toString('latin1');
  const header = text.split('\r\n');
  // a header line the parser would split elsewhere, or a blank line ending the header early
  if (/[\r\n]/.test(header.join('')) || header.includes('')) return null;
  const tree: MimeTreeNode = { header, parsedHeader: {}, body: Buffer.alloc(0), multipart: false, boundary: false };
  parser._node = tree as typeof parser._node;
  parser.processNodeHeader();
  parser.processContentType();
  return tree;
}

function build(source: PartSource, boundaries: readonly string[], root: boolean, fast: boolean): MimeTreeNode | null {
  const part = source.write();
  const tree = headerOf(part.fields, fast, root);
  if (!tree) return null;
  const type = (tree.parsedHeader['content-type'] as { value: string }).value;
  const content = part.body;
  if (part.multipart) {
    // written multiparts have no preamble; what follows each close delimiter is its line break
    const boundary = part.boundary;
    if (typeof boundary !== 'string' || tree.boundary !== boundary || content.length) return null;
    const inner = [...boundaries, boundary];
    const children: MimeTreeNode[] = [];
    // a digest's parts default to message/rfc822, which parsedFields does not know
    const fastChildren = fast && tree.multipart !== 'digest';
    for (const child of part.children) {
      const built = build(child, inner, false, fastChildren);
      if (!built) return null;
      children.push(built);
    }
    return { ...tree, childNodes: children, lineCount: 0, size: 0, epilogue: crlf } as MimeTreeNode;
  }
  if (tree.multipart || (root && type === 'message/rfc822')) return null;
  // the serialized message ends with a line break: a root leaf's body keeps it
  const body = root && content.length && content.at(-1) !== 0x0a ? Buffer.concat([content, crlf]) : content;
  const lineCount = crlfCount(body);
  if (lineCount < 0 || holdsDelimiter(body, boundaries)) return null;
  const leaf: MimeTreeNode = { ...tree, body, lineCount, size: body.length };
  const encoding = tree.parsedHeader['content-transfer-encoding'];
  if (type === 'message/rfc822' && (!encoding || ['7bit', '8bit', 'binary'].includes(encoding as string)))
    leaf.message = parse(body) as MimeTreeNode;
  return leaf;
}

/**
 * The tree imap-core's parser makes of the serialized message, or null where that is not
 * certain. `fast` reads ASCII header blocks with header-fields.ts instead of the parser.
 */
export function partTree(root: PartSource, fast = false): MimeTreeNode | null {
  return build(root, [], true, fast);
}
