// Loaded by ava before every test file (see package.json "ava.require").
// It sets the realm up exactly as an Endo daemon worker does: SES lockdown()
// with the default options, plus the HandledPromise shim that E() relies on.
import '@endo/init';
