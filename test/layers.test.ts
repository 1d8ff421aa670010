/**
 * The layers' one table (scripts/layers/table.ts) holds the tree: every entry of src/ sits in
 * exactly one room, so no folder or file is born unguarded; lint, whose import rules are made
 * from the table, refuses an import up or sideways wherever it is written; and CONTRIBUTING.md's
 * "Layers" block is what `npm run docs` writes from the table and each file's opening comment.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'
import { spliceLayers } from '../scripts/layers/layout.ts'
import { LAYERS, placedRooms } from '../scripts/layers/table.ts'

const ROOT = join(import.meta.dirname, '..')

describe('the layers', () => {
  it('place every entry of src/ in exactly one room, and name no room that is not there', () => {
    const entries = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? `${entry.name}/` : entry.name,
    )
    const rooms = LAYERS.flatMap((layer) => layer.floors.flat().map((room) => room.path))
    const timesPlaced = (entry: string) => rooms.filter((room) => room === entry).length
    expect(entries.filter((entry) => timesPlaced(entry) !== 1)).toEqual([])
    expect(rooms.filter((room) => !entries.includes(room))).toEqual([])
  })

  it('hold only the doors, the ports and the leaves at the top of src/', () => {
    const topFiles = placedRooms().filter((room) => !room.path.endsWith('/'))
    expect(
      topFiles.filter((room) => !['doors', 'reading and ports', 'leaves'].includes(room.layer)),
    ).toEqual([])
  })

  it("are CONTRIBUTING.md's block (run `npm run docs` and commit it if not)", () => {
    const page = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8')
    expect(spliceLayers(page, ROOT)).toBe(page)
  })

  it('make lint refuse an import up or sideways, and take one down', async () => {
    const eslint = new ESLint({ cwd: ROOT })
    const refused = async (file: string, from: string) => {
      const code = `import type { X } from '${from}'\nexport type Y = X\n`
      const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) })
      return (result?.messages ?? []).some((message) => message.ruleId === 'no-restricted-imports')
    }
    // Up: the probes the old lists let through (model/ into step/, report/ and cli/; run/ into step/).
    expect(await refused('src/model/probe.ts', '../step/shape.ts')).toBe(true)
    expect(await refused('src/model/probe.ts', '../report/main.ts')).toBe(true)
    expect(await refused('src/model/probe.ts', '../cli/io.ts')).toBe(true)
    expect(await refused('src/run/probe.ts', '../step/shape.ts')).toBe(true)
    expect(await refused('src/step-io.ts', './inputs/values.ts')).toBe(true)
    // Sideways: peers of one floor.
    expect(await refused('src/github/probe.ts', '../run/create.ts')).toBe(true)
    expect(await refused('src/reconcile/probe.ts', '../step/main.ts')).toBe(true)
    // Down, and within a room.
    expect(await refused('src/step/probe.ts', '../run/create.ts')).toBe(false)
    expect(await refused('src/run/probe.ts', './create.ts')).toBe(false)
    expect(await refused('src/index.ts', './runner.ts')).toBe(false)
  }, 60_000)
})
