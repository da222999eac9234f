// Builds a JSON response from stored document bytes without decoding or re-encoding them.
const COMMA = Buffer.from(',');

/** `head`, the documents separated by commas, then `tail`: one copy of each document into the response. */
export function joinJson(head: string, docs: readonly Buffer[], tail: string): Buffer {
  const parts: Buffer[] = [Buffer.from(head)];
  docs.forEach((doc, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(doc);
  });
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}
