/**
 * A chunk of dist/ written in ASCII: each character past ASCII (an icon, `…`, `·`, `→`, all in
 * strings, regular expressions and comments) as its `\uXXXX` escape, which means the same
 * there; and its source map's columns moved to match. Node decodes a module's file from UTF-8,
 * and one character past ASCII makes the whole 0.8 MB a two-byte string, slower to decode and
 * to compile: every step paid about 10 ms for 76 icons (issue 46). esbuild writes ASCII by
 * default for the same reason.
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** The first value of a mapping's segment, and the rest of the segment as it was. */
function firstValue(segment: string): { value: number; rest: string } {
  let value = 0
  let shift = 0
  for (let i = 0; i < segment.length; i += 1) {
    const digit = BASE64.indexOf(segment[i] ?? '')
    value += (digit & 31) << shift
    if ((digit & 32) === 0) {
      const signed = value & 1 ? -(value >>> 1) : value >>> 1
      return { value: signed, rest: segment.slice(i + 1) }
    }
    shift += 5
  }
  throw new Error(`a source map segment that ends mid-value: ${segment}`)
}

function vlq(value: number): string {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1
  let out = ''
  do {
    let digit = rest & 31
    rest >>>= 5
    if (rest > 0) digit |= 32
    out += BASE64[digit]
  } while (rest > 0)
  return out
}

/** One generated line's segments with their columns moved by `moved` (old column to new). */
export function moveColumns(line: string, moved: (column: number) => number): string {
  if (line === '') return line
  let before = 0
  let beforeMoved = 0
  return line
    .split(',')
    .map((segment) => {
      const { value, rest } = firstValue(segment)
      const column = before + value
      const newColumn = moved(column)
      const out = vlq(newColumn - beforeMoved) + rest
      before = column
      beforeMoved = newColumn
      return out
    })
    .join(',')
}

/** `code` with every character past ASCII escaped, and `map` (a source map's JSON) to match. */
export function asciiChunk(code: string, map: string | undefined): { code: string; map?: string } {
  const lines = code.split('\n')
  const mapped = map === undefined ? undefined : (JSON.parse(map) as { mappings: string })
  const mappings = mapped?.mappings.split(';')
  const escaped = lines.map((line, index) => {
    // Each escaped UTF-16 unit becomes six characters: the columns after it move by five.
    const at: number[] = []
    const out = line.replace(/[\u0080-\uffff]/g, (char, offset: number) => {
      at.push(offset)
      return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
    })
    if (at.length > 0 && mappings?.[index] !== undefined) {
      mappings[index] = moveColumns(
        mappings[index],
        (column) => column + 5 * at.filter((offset) => offset < column).length,
      )
    }
    return out
  })
  if (!mapped || !mappings) return { code: escaped.join('\n') }
  return {
    code: escaped.join('\n'),
    map: JSON.stringify({ ...mapped, mappings: mappings.join(';') }),
  }
}
