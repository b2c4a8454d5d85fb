// The pet names fae uses and makes: those every daemon generation takes.
// February's rule is the strictest (lowercase letters, digits and "-",
// at most 128 characters, ../shared/spec/endo-guest-api.md §1.2); the
// newer daemons take any name without "/", "@" or NUL. So a name that
// passes here is a pet name on every generation, and never a special name
// (those are uppercase on February and begin with "@" since).

/** A pet name on every daemon generation. */
export const PET_NAME = /^[a-z0-9][a-z0-9-]{0,127}$/;

export const isPetName = (name: string): boolean => PET_NAME.test(name);
harden(isPetName);
