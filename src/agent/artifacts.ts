import { posix, resolve, sep } from 'node:path'

/**
 * The run's artifacts (`RunItem.artifacts`), read defensively, for the
 * `artifacts` output, the summary, and `download_artifacts`.
 */
export interface ArtifactEntry {
  /** PULL_REQUEST, FILE, SCREENSHOT, PLAN, or a type this action does not know yet. */
  readonly type: string
  /** A file's name, a plan's title, a pull request's branch. */
  readonly name?: string
  /** A pull request's or plan's address (http(s) only). Signed download URLs never appear here. */
  readonly url?: string
  /** What `GET /agent/artifacts/{artifactUid}` takes. */
  readonly artifactUid?: string
  /** Where the agent says the file was, for FILE artifacts; untrusted. */
  readonly filepath?: string
  readonly sizeBytes?: number
}

export function parseArtifacts(artifacts: unknown): ArtifactEntry[] {
  if (!Array.isArray(artifacts)) return []
  return artifacts.filter(isRecord).map((artifact) => {
    const data = isRecord(artifact.data) ? artifact.data : {}
    const type = typeof artifact.artifact_type === 'string' ? artifact.artifact_type : 'UNKNOWN'
    const name =
      type === 'FILE'
        ? (text(data.filename) ?? baseName(text(data.filepath)))
        : type === 'PULL_REQUEST'
          ? text(data.branch)
          : (text(data.title) ?? text(data.filename) ?? text(data.description))
    return dropUndefined({
      type,
      name,
      url: httpUrl(data.url),
      artifactUid: text(data.artifact_uid),
      filepath: type === 'FILE' ? text(data.filepath) : undefined,
      sizeBytes:
        typeof data.size_bytes === 'number' && Number.isFinite(data.size_bytes)
          ? data.size_bytes
          : undefined,
    })
  })
}

/** The `artifacts` output's items: `{ type, name, url, path }`, each member present when known. */
export function artifactsOutput(
  artifacts: readonly ArtifactEntry[],
  downloadedTo: ReadonlyMap<ArtifactEntry, string> = new Map(),
): object[] {
  return artifacts.map((artifact) =>
    dropUndefined({
      type: artifact.type,
      name: artifact.name,
      url: artifact.url,
      path: downloadedTo.get(artifact),
    }),
  )
}

/**
 * `download_artifacts`: patterns one a line, or comma-separated. Blank
 * entries are dropped. Returns the patterns; throws a message for a bad one.
 */
export function parseArtifactPatterns(value: string): string[] {
  const patterns = value
    .split(/[\n,]/)
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '')
  for (const pattern of patterns) {
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    if (/[\u0000-\u001f]/.test(pattern)) {
      throw new Error(`has a control character in the pattern "${JSON.stringify(pattern)}".`)
    }
    if (pattern.startsWith('!')) {
      throw new Error(`cannot exclude with "!" ("${pattern}"); list the files to download.`)
    }
  }
  return patterns
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f<>:"|?*]/

/**
 * Where a file the service names goes inside `dir`, or why it may not go
 * anywhere. The name is untrusted: it must be a relative path that stays
 * inside the directory on every platform the runner may be (no `..`, no
 * absolute path, no drive letter or UNC share, no NUL or other control
 * character, no Windows-reserved name or character, no trailing dot or space).
 */
export function safeArtifactPath(
  dir: string,
  filepath: string,
): { ok: true; path: string } | { ok: false; reason: string } {
  const refuse = (reason: string) => ({ ok: false as const, reason })
  if (filepath === '') return refuse('the service gave no file name')
  if (filepath.includes('\0')) return refuse('the name holds a NUL character')
  const unified = filepath.replace(/\\/g, '/')
  if (unified.startsWith('/')) return refuse('it is an absolute path')
  if (/^[a-zA-Z]:/.test(unified)) return refuse('it starts with a drive letter')
  const parts = unified.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.length === 0) return refuse('it names no file')
  for (const part of parts) {
    if (part === '..') return refuse('it climbs out of the directory with ".."')
    if (part.toLowerCase() === '.git') return refuse('it would write into .git')
    if (FORBIDDEN_CHARACTERS.test(part)) {
      return refuse(`"${printable(part)}" holds a character Windows forbids in file names`)
    }
    if (WINDOWS_RESERVED.test(part)) return refuse(`"${part}" is a name Windows reserves`)
    if (/[. ]$/.test(part)) return refuse(`"${part}" ends in a dot or a space`)
  }
  const root = resolve(dir)
  const path = resolve(root, ...parts)
  // Belt and braces: whatever the checks above missed, the result must lie inside the directory.
  if (!path.startsWith(root + sep)) return refuse('it would land outside the directory')
  return { ok: true, path }
}

/** The default download directory: `$RUNNER_TEMP/cloud-agent-artifacts/<run_id>`. */
export function defaultArtifactsDir(runnerTemp: string, runId: string): string {
  return resolve(runnerTemp, 'cloud-agent-artifacts', runId.replace(/[^\w-]/g, '_') || '_')
}

/** How long a task folder's title slug may be: the folder's name stays short on every platform. */
const TASK_SLUG_CHARS = 40

/**
 * With `tasks`, each task's files go into a folder of their own under the download directory:
 * `<task number>-<title slug>`, numbered from 1 (`3-package-c`), or just the number for a task
 * without a title. The slug keeps ASCII letters and digits (accents dropped, lower case), each
 * other run of characters one `-`, at most 40 characters: a name safe on every file system,
 * which never climbs out of the directory, and unique by its number.
 */
export function taskFolderName(index: number, title: string | undefined): string {
  const slug = (title ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, TASK_SLUG_CHARS)
    .replace(/^-+|-+$/g, '')
  return slug ? `${index + 1}-${slug}` : String(index + 1)
}

export type DownloadPlan =
  | { readonly artifact: ArtifactEntry; readonly path: string }
  | { readonly artifact: ArtifactEntry; readonly refused: string }

/**
 * Where each matching file goes, or why it does not: an unsafe name, or a
 * destination another file already takes (compared without case, as on
 * Windows and macOS), so that no download overwrites another.
 */
export function planDownloads(dir: string, artifacts: readonly ArtifactEntry[]): DownloadPlan[] {
  const taken = new Set<string>()
  return artifacts.map((artifact) => {
    const target = safeArtifactPath(dir, artifact.filepath ?? '')
    if (!target.ok) return { artifact, refused: target.reason }
    const key = target.path.toLowerCase()
    if (taken.has(key)) return { artifact, refused: 'another artifact has the same path' }
    taken.add(key)
    return { artifact, path: target.path }
  })
}

function baseName(filepath: string | undefined): string | undefined {
  if (filepath === undefined) return undefined
  return posix.basename(filepath.replace(/\\/g, '/')) || undefined
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : undefined
  } catch {
    return undefined
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function printable(text: string): string {
  return JSON.stringify(text).slice(1, -1)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function dropUndefined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T
}
