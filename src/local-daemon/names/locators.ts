// Locators in each generation's syntax (spec §1.1; next spec §1):
//   feb, may: endo://<node>/?id=<number>&type=<type>
//   aug:      endo://<node>/<number>?type=<type>
// Each generation parses only its own syntax, with the daemon's error
// texts, so a caplet that sends the other syntax fails as it would.
import { q } from '@endo/errors';
import type { Dialect } from '../../daemon/dialect.js';

const hexPattern = (dialect: Dialect) => (dialect === 'feb' ? /^[0-9a-f]{128}$/ : /^[0-9a-f]{64}$/);

export const formatLocator = (dialect: Dialect, id: string, type: string): string => {
  const [number, node] = id.split(':');
  if (dialect === 'aug') return `endo://${node}/${encodeURIComponent(number)}?type=${type}`;
  return `endo://${node}/?id=${number}&type=${type}`;
};
harden(formatLocator);

/** The raw id a locator names, or the daemon's "Invalid locator" error. */
export const idFromLocator = (dialect: Dialect, locator: string): string => {
  const fail = (why: string) => Error(`Invalid locator ${q(locator)}: ${why}`);
  if (!URL.canParse(locator)) throw fail('Invalid URL.');
  const url = new URL(locator);
  if (!locator.startsWith('endo://')) throw fail('Invalid protocol.');
  const isNumber = (text: string | null): text is string => text !== null && hexPattern(dialect).test(text);
  const node = url.host;
  if (!isNumber(node)) throw fail('Invalid node identifier.');
  const keys = [...url.searchParams.keys()];
  let number: string | null;
  if (dialect === 'aug') {
    const path = url.pathname.replace(/^\//, '');
    if (path === '') throw fail('Missing formula number.');
    number = decodeURIComponent(path.split('@')[0]);
    if (!isNumber(number)) throw fail('Invalid id.');
    if (keys.some(key => !['type', 'from', 'fromNode'].includes(key))) throw fail('Invalid search params.');
  } else {
    const allowed = dialect === 'feb' ? ['id', 'type'] : ['id', 'type', 'at'];
    const exact = dialect === 'feb' ? keys.length === 2 : true;
    if (!exact || !url.searchParams.has('id') || !url.searchParams.has('type')) {
      throw fail('Invalid search params.');
    }
    if (keys.some(key => !allowed.includes(key))) throw fail('Invalid search params.');
    number = url.searchParams.get('id');
    if (!isNumber(number)) throw fail('Invalid id.');
  }
  if (!url.searchParams.get('type')) throw fail('Invalid type.');
  return `${number}:${node}`;
};
harden(idFromLocator);
