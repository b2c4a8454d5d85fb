// What the model reads of an MCP tool result. Text blocks are kept as they
// are; an image, audio or binary resource is described (its type and size)
// rather than dropped or pasted as base64 a model cannot read; an embedded
// text resource and a resource link say where they come from; structured
// content is added as JSON unless a text block already says exactly that.
// An `isError` result becomes a thrown error with the server's own words,
// so fae shows it to the model as a failed call.
import { q } from '@endo/errors';
import { isRecord } from '../is-record.js';

/** The size of base64 data in bytes, without decoding it. */
const base64Bytes = (data: unknown) => {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
};

const describeResource = (resource: Record<string, unknown>) => {
  const where = `${q(resource.uri)}${typeof resource.mimeType === 'string' ? ` (${resource.mimeType})` : ''}`;
  if (typeof resource.text === 'string') return `[resource ${where}]\n${resource.text}`;
  return `[binary resource ${where}, ${base64Bytes(resource.blob)} bytes, not shown]`;
};

const describeBlock = (block: unknown): string => {
  if (!isRecord(block)) return `[content the bridge cannot read: ${q(block)}]`;
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'image':
    case 'audio':
      return `[${block.type} ${String(block.mimeType)}, ${base64Bytes(block.data)} bytes, not shown]`;
    case 'resource':
      return isRecord(block.resource) ? describeResource(block.resource) : '[resource without content]';
    case 'resource_link': {
      const about = [block.name, block.description].filter(part => typeof part === 'string' && part !== '').join(': ');
      const type = typeof block.mimeType === 'string' ? ` (${block.mimeType})` : '';
      return `[resource link ${q(block.uri)}${type}${about === '' ? '' : ` ${about}`}]`;
    }
    default:
      return `[${q(block.type)} content, not shown]`;
  }
};

/**
 * Whether the text blocks already say what the structured content holds:
 * its JSON is one of them, or it only wraps texts they show (a server
 * answering `{ "content": "<the text>" }` beside the text itself).
 */
const alreadySaid = (texts: readonly string[], value: unknown) => {
  const json = JSON.stringify(value);
  const parsesTo = (text: string) => {
    try {
      return JSON.stringify(JSON.parse(text)) === json;
    } catch {
      return false;
    }
  };
  if (texts.some(parsesTo)) return true;
  if (!isRecord(value)) return false;
  const values = Object.values(value);
  return values.length > 0 && values.every(item => typeof item === 'string' && texts.includes(item));
};

/** The result as text for the model; throws the server's words when it is an error. */
export const resultText = (toolName: string, result: unknown): string => {
  if (!isRecord(result)) throw Error(`${toolName}: the server answered ${q(result)}, not a tool result`);
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(describeBlock);
  const { structuredContent } = result;
  if (structuredContent !== undefined) {
    const texts = blocks.filter(block => isRecord(block) && block.type === 'text').map(block => String((block as { text: unknown }).text));
    if (!alreadySaid(texts, structuredContent)) {
      parts.push(`structured content: ${JSON.stringify(structuredContent)}`);
    }
  }
  const text = parts.join('\n');
  if (result.isError === true) {
    throw Error(`${toolName} failed: ${text === '' ? 'the server gave no reason' : text}`);
  }
  return text === '' ? `${toolName} returned no content` : text;
};
harden(resultText);
