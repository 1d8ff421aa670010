/** Rejects: @actions/exec is not part of this action (see README.md). */
export declare function exec(
  commandLine: string,
  args?: string[],
  options?: unknown,
): Promise<never>
/** Rejects: @actions/exec is not part of this action (see README.md). */
export declare function getExecOutput(
  commandLine: string,
  args?: string[],
  options?: unknown,
): Promise<never>
