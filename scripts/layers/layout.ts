/**
 * CONTRIBUTING.md's "Layers": the table of scripts/layers/table.ts as a code block, a line per
 * layer, per room and per file, each file's line the first sentence of its opening comment.
 * `npm run docs` writes it; test/layers.test.ts fails when the page holds another.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { LAYERS } from './table.ts'

export const LAYERS_START =
  "<!-- The layers: written by `npm run docs` from scripts/layers/table.ts and each file's opening comment. -->"
export const LAYERS_END = '<!-- The layers: end. -->'

/** The widest a line of the block may be. */
const WIDTH = 100
/** The column where a line's words start. */
const COLUMN = 28

/** The first sentence of a file's first doc comment (`/** … *\/`), on one line. */
export function openingSentence(text: string): string | undefined {
  const block = /\/\*\*([\s\S]*?)\*\//.exec(text)?.[1]
  if (block === undefined) return undefined
  const words = block
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
  const end = /\.(?:\s|$)/.exec(words)
  return end ? words.slice(0, end.index + 1) : words
}

function line(head: string, words: string): string {
  const start = head.length + 1 < COLUMN ? head.padEnd(COLUMN) : `${head} `
  const room = WIDTH - start.length
  if (words.length <= room) return `${start}${words}`.trimEnd()
  const cut = words.slice(0, room - 1)
  return `${start}${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`
}

/** The block's lines, from src/ as it stands at `root`. */
export function renderLayers(root: string): string {
  const lines: string[] = []
  for (const layer of LAYERS) {
    lines.push(line(`${layer.name}:`, layer.about))
    for (const floor of layer.floors) {
      for (const room of floor) {
        lines.push(line(`  src/${room.path}`, room.holds))
        if (!room.path.endsWith('/')) continue
        const folder = join(root, 'src', room.path)
        const files = readdirSync(folder)
          .filter((name) => name.endsWith('.ts'))
          .sort()
        for (const name of files) {
          const sentence = openingSentence(readFileSync(join(folder, name), 'utf8'))
          lines.push(line(`      ${name}`, sentence ?? '(no opening comment)'))
        }
      }
    }
  }
  return ['```', ...lines, '```'].join('\n')
}

/** The page with its block between the markers made anew. */
export function spliceLayers(page: string, root: string): string {
  const start = page.indexOf(LAYERS_START)
  const end = page.indexOf(LAYERS_END)
  if (start === -1 || end < start) throw new Error('CONTRIBUTING.md has no layers markers')
  return `${page.slice(0, start + LAYERS_START.length)}\n\n${renderLayers(root)}\n\n${page.slice(end)}`
}
