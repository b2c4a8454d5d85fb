// The text transformation behind editFile, kept pure so it can be tested
// without a filesystem. Upstream used String#replace, which reads `$&`,
// `$1` and `$$` in the new text as patterns and silently edits only the
// first of several matches (defect F8); here the replacement is literal and
// must be unambiguous.
import { q } from '@endo/errors';

const BOM = '\uFEFF';

/** Counts non-overlapping occurrences of `needle` in `haystack`. */
export const countOccurrences = (haystack: string, needle: string) => {
  let count = 0;
  for (
    let at = haystack.indexOf(needle);
    at !== -1;
    at = haystack.indexOf(needle, at + needle.length)
  ) {
    count += 1;
  }
  return count;
};
harden(countOccurrences);

// A file "uses CRLF" when every line break in it is CRLF. Mixed files are
// edited exactly as given, since there is no one convention to keep.
const usesCrlf = (text: string) =>
  text.includes('\r\n') && !/(^|[^\r])\n/.test(text);

const toCrlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/**
 * Replaces the single occurrence of `oldString` in `content` by `newString`,
 * literally. Keeps a leading byte-order mark and, in a CRLF file, turns the
 * line breaks of both strings into CRLF (models write `\n`). Throws an error
 * naming `displayPath` when `oldString` is absent or occurs more than once.
 */
export const replaceExactlyOnce = (
  content: string,
  oldString: string,
  newString: string,
  displayPath: string,
): string => {
  if (oldString === '') {
    throw Error('"oldString" is empty; give the exact text to replace');
  }
  if (oldString === newString) {
    throw Error('"oldString" and "newString" are the same; nothing would change');
  }
  const bom = content.startsWith(BOM) ? BOM : '';
  const body = content.slice(bom.length);
  const crlf = usesCrlf(body);
  const target = crlf ? toCrlf(oldString) : oldString;
  const replacement = crlf ? toCrlf(newString) : newString;
  const count = countOccurrences(body, target);
  if (count === 0) {
    throw Error(
      `"oldString" was not found in ${q(displayPath)}; read the file and copy the text exactly, including whitespace`,
    );
  }
  if (count > 1) {
    throw Error(
      `"oldString" occurs ${count} times in ${q(displayPath)}; include more surrounding text so that it matches exactly once`,
    );
  }
  const at = body.indexOf(target);
  return `${bom}${body.slice(0, at)}${replacement}${body.slice(at + target.length)}`;
};
harden(replaceExactlyOnce);
