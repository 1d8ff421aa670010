/** Throws when constructed: undici is not part of this action (see README.md). */
export declare const ProxyAgent: new (options?: unknown) => object
/** Rejects: undici is not part of this action (see README.md). */
export declare function fetch(input: unknown, init?: unknown): Promise<never>
