// @endo/captp ships JavaScript without declarations; this is the part of
// makeCapTP the local daemon uses.
declare module '@endo/captp' {
  export interface CapTPOptions {
    onReject?: (reason: unknown) => void;
    /** Release imports the program dropped (CTP_DROP); default false. */
    gcImports?: boolean;
  }
  export interface CapTP {
    dispatch(message: unknown): boolean;
    getBootstrap(): Promise<unknown>;
    abort(reason?: unknown): void;
  }
  export function makeCapTP(
    ourId: string,
    rawSend: (message: unknown) => unknown,
    bootstrapObj?: unknown,
    options?: CapTPOptions,
  ): CapTP;
}
