// MCP tool names are free text (dots, slashes, any length); fae's schema
// names must match /^[a-zA-Z0-9_-]{1,64}$/ and the host's pet names
// /^[a-z0-9][a-z0-9-]{0,127}$/. The mapping keeps a valid name as it is,
// replaces each other character by "_" (schema) or "-" (pet name), cuts
// to length, and makes a clash unique with a numbered suffix in the
// server's own order, so the same list always maps the same way.

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const SCHEMA_MAX = 64;
const PET_MAX = 100;

const unique = (base: string, max: number, taken: Set<string>, joiner: string) => {
  let candidate = base;
  for (let n = 2; taken.has(candidate); n += 1) {
    const suffix = `${joiner}${n}`;
    candidate = `${base.slice(0, max - suffix.length)}${suffix}`;
  }
  taken.add(candidate);
  return candidate;
};

const schemaBase = (mcpName: string) => {
  if (SCHEMA_NAME.test(mcpName)) return mcpName;
  const replaced = mcpName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, SCHEMA_MAX);
  return replaced === '' ? 'tool' : replaced;
};

const petBase = (mcpName: string) => {
  const replaced = mcpName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, PET_MAX)
    .replace(/-+$/, '');
  return replaced === '' ? 'tool' : replaced;
};

export interface ToolNaming {
  readonly mcpName: string;
  /** The name the model calls. */
  readonly schemaName: string;
  /** The capability's name in the host's folder. */
  readonly petName: string;
}

/** Names for each tool of a list, in the server's order. */
export const nameTools = (mcpNames: readonly string[]): readonly ToolNaming[] => {
  const schemaNames = new Set<string>();
  const petNames = new Set<string>();
  // Names already valid are claimed first, so a mapped name never takes
  // one that a tool has by right.
  for (const mcpName of mcpNames) if (SCHEMA_NAME.test(mcpName)) schemaNames.add(mcpName);
  const claimed = new Set(schemaNames);
  return harden(
    mcpNames.map(mcpName => ({
      mcpName,
      schemaName: claimed.has(mcpName) ? mcpName : unique(schemaBase(mcpName), SCHEMA_MAX, schemaNames, '_'),
      petName: unique(petBase(mcpName), PET_MAX, petNames, '-'),
    })),
  );
};
harden(nameTools);
