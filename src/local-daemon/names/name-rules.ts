// What every generation's name rules offer (names.ts for February,
// names-new.ts for May and August): the checks behind every name method.
export interface NameRules {
  isPetName(name: unknown): name is string;
  isSpecialName(name: unknown): name is string;
  isName(name: unknown): name is string;
  assertName(name: string): void;
  assertPetName(name: string): void;
  /** A string is a one-element path; every element must be a name. */
  namePathFrom(nameOrPath: string | readonly string[]): string[];
  /** For operations that create or delete a binding: the last name must be a pet name. */
  petNamePathFrom(nameOrPath: string | readonly string[]): string[];
  /** Edge names label message attachments. */
  assertEdgeNames(edgeNames: readonly string[]): void;
}
