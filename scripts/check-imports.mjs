// Fails when an import runs up the layers below or closes a circle. It reads
// the import and export-from specifiers of every .ts file in src/, providers/,
// tools/ and the top level (test/ may import anything). `npm test` runs it.
//
//   node scripts/check-imports.mjs
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

// The layers, lowest first. A file may import files of its own room and of
// the rooms on lower layers; rooms on one layer never import each other. A
// room is a folder with its subfolders ('src/*': the files directly in src/)
// or, at the top level, the files its name matches.
const LAYERS = [
  // Small helpers; the event log and redaction; what tool caplets are built
  // from (also by outside authors, so it imports nothing of fae's).
  ['src/*', 'src/logging', 'src/tool-kit'],
  // the chat contract and its three adapters; the MCP bridge (tool-kit based caplets)
  ['providers', 'src/mcp'],
  ['src/daemon'], // how fae talks to the Endo daemon
  ['src/usage', 'src/conversations'], // what model calls cost; the conversations
  ['src/toolbox'], // what the model can call
  ['src/agent'], // fae itself
  ['src/provisioning'], // what the setup scripts do to a host
  ['agent.ts', 'setup*.ts'], // the caplet and the setup scripts
];

// Side columns stand beside the layers: each may import the rooms up to the
// layer of `over`, and only the rooms in `importedBy` may import it.
const SIDE_COLUMNS = [
  { room: 'tools', over: 'src/tool-kit', importedBy: [] }, // the tool caplets fae ships
  { room: 'src/local-daemon', over: 'src/daemon', importedBy: ['src/chat'] }, // a daemon in-process
  { room: 'src/chat', over: 'src/provisioning', importedBy: [] }, // the terminal chat (npm start)
];

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_FOLDERS = ['src', 'providers', 'tools'];

/** Every .ts file checked, relative to the root, with / separators. */
const sourceFiles = () => {
  const top = fs.readdirSync(ROOT).filter(name => name.endsWith('.ts'));
  const nested = SOURCE_FOLDERS.flatMap(folder =>
    fs
      .readdirSync(path.join(ROOT, folder), { recursive: true })
      .map(name => `${folder}/${String(name).split(path.sep).join('/')}`)
      .filter(name => name.endsWith('.ts')),
  );
  return [...top, ...nested].sort();
};

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  'return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete',
  'void', 'throw', 'instanceof', 'yield', 'await',
]);

/**
 * The module specifiers a file names: `from '…'` (import and export),
 * `import '…'` and `import('…')`. A small scanner, so that comments, strings,
 * template literals and regular expressions are never read as code.
 */
const specifiersOf = text => {
  const tokens = []; // { kind: 'word' | 'string' | 'punct', value }
  const braces = []; // 'code' or 'template' for each open `{` / `${`
  let i = 0;
  const last = () => tokens[tokens.length - 1];
  const regexAllowed = () => {
    const t = last();
    if (t === undefined) return true;
    if (t.kind === 'word') return KEYWORDS_BEFORE_EXPRESSION.has(t.value);
    if (t.kind === 'string') return false;
    return !')]}'.includes(t.value);
  };
  /** Reads template text from i (just after ` or }) to its end or to `${`. */
  const templateText = () => {
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i += 1;
        tokens.push({ kind: 'string', value: null });
        return;
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2;
        braces.push('template');
        tokens.push({ kind: 'punct', value: '${' });
        return;
      } else i += 1;
    }
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (/\s/.test(c)) i += 1;
    else if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c && text[j] !== '\n') {
        if (text[j] === '\\') {
          value += text[j + 1];
          j += 2;
        } else {
          value += text[j];
          j += 1;
        }
      }
      tokens.push({ kind: 'string', value });
      i = j + 1;
    } else if (c === '`') {
      i += 1;
      templateText();
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\') j += 1;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        else if (text[j] === '/' && !inClass) break;
        j += 1;
      }
      i = j + 1;
      while (i < text.length && /[a-z]/i.test(text[i])) i += 1;
      tokens.push({ kind: 'string', value: null });
    } else if (/[\w$]/.test(c)) {
      let j = i;
      while (j < text.length && /[\w$]/.test(text[j])) j += 1;
      tokens.push({ kind: 'word', value: text.slice(i, j) });
      i = j;
    } else if (c === '{') {
      braces.push('code');
      tokens.push({ kind: 'punct', value: c });
      i += 1;
    } else if (c === '}') {
      i += 1;
      if (braces.pop() === 'template') templateText();
      else tokens.push({ kind: 'punct', value: c });
    } else {
      tokens.push({ kind: 'punct', value: c });
      i += 1;
    }
  }
  const found = [];
  tokens.forEach((token, k) => {
    if (token.kind !== 'word') return;
    const after = tokens[k + 1];
    const before = tokens[k - 1];
    if (before?.kind === 'punct' && before.value === '.') return;
    if (token.value === 'from' && after?.kind === 'string' && after.value !== null) found.push(after.value);
    if (token.value !== 'import') return;
    if (after?.kind === 'string' && after.value !== null) found.push(after.value);
    const inParens = tokens[k + 2];
    if (after?.value === '(' && inParens?.kind === 'string' && inParens.value !== null) found.push(inParens.value);
  });
  return found;
};

/** The file a relative specifier names, or undefined for a package. */
const resolve = (from, specifier) => {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return joined.replace(/\.js$/, '.ts');
};

const globToRegExp = glob => new RegExp(`^${glob.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);

/** Each room's place: its layer, or for a side column the highest layer it may import and who may import it. */
const rooms = new Map();
LAYERS.forEach((names, layer) => names.forEach(name => rooms.set(name, { layer, side: false })));
for (const { room, over, importedBy } of SIDE_COLUMNS) {
  const under = rooms.get(over);
  if (under === undefined || under.side) throw Error(`check-imports: ${over} is not a room of LAYERS`);
  rooms.set(room, { side: true, upTo: under.layer, importedBy });
}

/** The room a file is in: `folder/*` for a file directly in it, else the longest folder that holds it, or the top-level name it matches. */
const roomOf = file => {
  const folder = path.posix.dirname(file);
  if (folder === '.') return [...rooms.keys()].find(name => !name.includes('/') && globToRegExp(name).test(file));
  if (rooms.has(`${folder}/*`)) return `${folder}/*`;
  const holders = [...rooms.keys()].filter(name => !name.endsWith('/*') && file.startsWith(`${name}/`));
  return holders.sort((a, b) => b.length - a.length)[0];
};

/** Why a file of `fromRoom` may not import one of `toRoom`, or undefined when it may. */
const layerProblem = (fromRoom, toRoom) => {
  if (fromRoom === toRoom) return undefined;
  const source = rooms.get(fromRoom);
  const target = rooms.get(toRoom);
  if (target.side) {
    return target.importedBy.includes(fromRoom) ? undefined : `${toRoom} is a side column that ${fromRoom} may not import`;
  }
  const highest = source.side ? source.upTo : source.layer - 1;
  if (target.layer <= highest) return undefined;
  return !source.side && target.layer === source.layer
    ? `${fromRoom} and ${toRoom} are on the same layer`
    : `${toRoom} is above what ${fromRoom} may import`;
};

/** The circles among `files`: Tarjan's strongly connected components of two or more. */
const circlesOf = graph => {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  const visit = start => {
    // Iterative, so a long chain of imports cannot overflow the stack.
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, edge] = frame;
      const targets = graph.get(node);
      if (edge < targets.length) {
        frame[1] += 1;
        const target = targets[edge];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node), index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const members = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          members.push(member);
        } while (member !== node);
        if (members.length > 1 || targets.includes(node)) circles.push(members.sort());
      }
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
};

/** A shortest way round from the first file of a circle back to it, by breadth-first search within the circle. */
const shortestCircle = (graph, circle) => {
  const inside = new Set(circle);
  const [start] = circle;
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node)) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const way = [node];
        while (cameFrom.get(way[0]) !== undefined) way.unshift(cameFrom.get(way[0]));
        return way;
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return circle;
};

const main = () => {
  const files = sourceFiles();
  const known = new Set(files);
  const problems = [];
  const graph = new Map();
  for (const file of files) {
    const fromRoom = roomOf(file);
    if (fromRoom === undefined) problems.push(`${file} is in no room of LAYERS or SIDE_COLUMNS`);
    const targets = new Set();
    for (const specifier of specifiersOf(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
      const target = resolve(file, specifier);
      if (target === undefined) continue;
      if (!known.has(target)) {
        problems.push(`${file} imports ${specifier}, which is no file of src/, providers/, tools/ or the top level`);
        continue;
      }
      targets.add(target);
      const toRoom = roomOf(target);
      if (fromRoom === undefined || toRoom === undefined) continue;
      const problem = layerProblem(fromRoom, toRoom);
      if (problem !== undefined) problems.push(`${file} imports ${target}: ${problem}`);
    }
    graph.set(file, [...targets]);
  }
  for (const circle of circlesOf(graph)) {
    const way = shortestCircle(graph, circle);
    const more = circle.length > way.length ? ` (and ${circle.length - way.length} more files tangled with it)` : '';
    problems.push(`import circle: ${[...way, way[0]].join(' → ')}${more}`);
  }
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`${problem}\n`);
    process.stderr.write(`check-imports: ${problems.length} problem(s); the layers are in scripts/check-imports.mjs\n`);
    process.exit(1);
  }
  process.stdout.write(`check-imports: ${files.length} files, no import up the layers, no circle\n`);
};

main();
