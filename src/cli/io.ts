/**
 * Where the command reads and writes: the process its entry hands in (the one place the
 * command reads it), or a test's stand-in.
 */

/** What the command takes of Node's process for its signals and its exit. */
export type CommandProcess = Pick<NodeJS.Process, 'on' | 'off' | 'listenerCount' | 'exit'>

/** Where the door writes and what it reads: the process's, or a test's. */
export interface CommandIo {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** The signals that cancel the command, and its exit: the process's, or a test's. */
  readonly process: CommandProcess
  /** The log and the messages for a person. A closed stream drops what is written. */
  readonly stderr: (text: string) => void
  /** The JSON, or the summary as text. A closed stream drops what is written. */
  readonly stdout: (text: string) => void
  /** All of standard input, for `--prompt-file -`. */
  readonly readStdin: () => Promise<string>
}

/** The command's io over the process its entry hands in: the one place the command reads it. */
export function commandIo(
  host: CommandProcess & Pick<NodeJS.Process, 'env' | 'cwd' | 'stdin' | 'stdout' | 'stderr'>,
): CommandIo {
  return {
    env: host.env,
    cwd: host.cwd(),
    process: host,
    stderr: closableWriter(host.stderr),
    stdout: closableWriter(host.stdout),
    readStdin: async () => {
      let text = ''
      for await (const chunk of host.stdin) text += String(chunk)
      return text
    },
  }
}

/**
 * Writes to a stream that a reader may close early (`| head`): an EPIPE ends the writing, never
 * the command, which goes on to cancel or finish its runs and exit with its own code.
 */
function closableWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let open = true
  stream.on('error', () => {
    open = false
  })
  return (text) => {
    if (open && !stream.destroyed) stream.write(text)
  }
}
