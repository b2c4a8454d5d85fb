// What a capability's method answered, as the model reads it. Plain data
// is written as any tool result is (Justin, which keeps bigints and
// undefined); a capability inside it is kept in fae's directory under a
// fresh name (with the turn's authority), and the text names it; a
// promise, an error or something that cannot be passed is explained,
// never shown as `{}`.
import { passStyleOf } from '@endo/marshal';
import { resultAsText } from '../result-text.js';

/** Keeps a capability under a fresh pet name; resolves to the name, or rejects with why it could not. */
export type Keep = (capability: unknown) => Promise<string>;

interface Found {
  readonly kept: string[];
  readonly lost: string[];
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** `value` with every capability replaced by what names it, and every promise and error by words. */
const replaced = async (value: unknown, keep: Keep, found: Found): Promise<unknown> => {
  let style: string;
  try {
    style = passStyleOf(harden(value) as never);
  } catch (error) {
    return `(a value that cannot be passed: ${reasonOf(error)})`;
  }
  switch (style) {
    case 'remotable':
      try {
        const name = await keep(value);
        found.kept.push(name);
        return `(capability, now in your directory as ${name})`;
      } catch (error) {
        found.lost.push(reasonOf(error));
        return '(a capability that could not be kept)';
      }
    case 'promise':
      return '(a promise: not waited for)';
    case 'error':
      return `(an error: ${(value as Error).message})`;
    case 'copyArray':
      return Promise.all((value as unknown[]).map(item => replaced(item, keep, found)));
    case 'copyRecord':
      return Object.fromEntries(
        await Promise.all(Object.entries(value as object).map(async ([key, item]) => [key, await replaced(item, keep, found)] as const)),
      );
    default:
      return value;
  }
};

/** The text of a method's answer `value`. */
export const describeResult = async (value: unknown, keep: Keep): Promise<string> => {
  const found: Found = { kept: [], lost: [] };
  const shown = resultAsText(harden(await replaced(value, keep, found)));
  const notes = [
    ...(found.kept.length > 0
      ? [`Capabilities it returned are in your directory now: ${found.kept.join(', ')}; give such a name where a capability is asked for.`]
      : []),
    ...found.lost.map(reason => `A capability it returned could not be kept: ${reason}.`),
  ];
  return notes.length === 0 ? shown : [shown, ...notes].join('\n');
};
harden(describeResult);
