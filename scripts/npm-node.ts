/**
 * Run by npm after a development install (`prepare`: never when the published package is
 * installed). When npm itself runs on a Node older than the tools need (20, say), says so in
 * one line, in place of npm's EBADENGINE warning for each package that asks for a newer Node
 * (.npmrc keeps npm to errors): the install worked, because the `node` dev dependency brought
 * Node 24, on which every npm script runs (this one too).
 */
const NEEDED = [22, 19] as const

// npm's own Node, from its user agent ("npm/11.6.2 node/v20.19.5 linux x64 …"): this script's
// process.version is the Node 24 that npm puts first on a script's PATH.
const found = /\bnode\/v(\d+\.\d+\.\d+)/.exec(process.env.npm_config_user_agent ?? '')?.[1]
if (found) {
  const [major = 0, minor = 0] = found.split('.').map(Number)
  if (major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1])) {
    // On stderr: stdout is what npm was asked for (`npm pack --json` must print only JSON).
    console.error(
      `npm runs on Node ${found}, older than the ${NEEDED.join('.')} the tools need: it installed ` +
        `Node ${process.versions.node} (the node dev dependency), on which every npm script runs.`,
    )
  }
}
