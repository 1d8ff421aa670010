// What scripts/build.ts uses of @vercel/ncc's API; the package ships no types.
declare module '@vercel/ncc' {
  interface Options {
    sourceMap?: boolean
    sourceMapRegister?: boolean
    /** Requests left to Node at run time; a value renames the request. */
    externals?: Record<string, string>
    quiet?: boolean
  }
  interface Output {
    code: string
    /** Lazily loaded chunks, source maps, and package.json ({"type": "module"}). */
    assets: Record<string, { source: string | Buffer }>
  }
  export default function ncc(entry: string, options?: Options): Promise<Output>
}
