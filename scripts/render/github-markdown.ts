/**
 * GitHub-flavoured Markdown rendered the way github.com shows a job summary or
 * a comment: GFM (tables, strikethrough, autolinks, alerts), then GitHub's HTML
 * allowlist, styled with GitHub's own Markdown stylesheet. It lets a person (and
 * a test) look at what the action writes before a user does.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Marked } from 'marked'
import markedAlert from 'marked-alert'
import sanitizeHtml from 'sanitize-html'

/**
 * The tags and attributes GitHub keeps in user Markdown (its html-pipeline
 * sanitization filter, reduced to what matters for our output). Everything else
 * is dropped, as GitHub drops it: scripts, styles, forms, event handlers.
 */
const GITHUB_ALLOWLIST: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'b',
    'i',
    'strong',
    'em',
    'a',
    'pre',
    'code',
    'img',
    'tt',
    'div',
    'ins',
    'del',
    'sup',
    'sub',
    'q',
    'samp',
    'kbd',
    'var',
    'blockquote',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'td',
    'th',
    's',
    'strike',
    'details',
    'summary',
    'picture',
    'source',
    'input',
    'span',
    'svg',
    'path',
  ],
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height', 'align'],
    div: ['class', 'align'],
    p: ['class', 'align'],
    span: ['class'],
    svg: ['class', 'viewBox', 'version', 'width', 'height', 'aria-hidden'],
    path: ['d'],
    input: ['type', 'checked', 'disabled'],
    td: ['align'],
    th: ['align'],
    code: ['class'],
    details: ['open'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
}

/** The Markdown as HTML, after GitHub's sanitization: what a reader's browser gets. */
export function renderGitHubMarkdown(markdown: string): string {
  const marked = new Marked({ gfm: true, breaks: false }).use(markedAlert())
  const html = marked.parse(markdown, { async: false })
  return sanitizeHtml(html, GITHUB_ALLOWLIST)
}

const require = createRequire(import.meta.url)

/** A whole page that frames the rendered Markdown as GitHub frames a comment or a summary. */
export function githubPage(options: { title: string; caption: string; markdown: string }): string {
  const css = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8')
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(options.title)}</title>
<style>${css}
body { background: #ffffff; margin: 0; padding: 16px; font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
.frame { width: 880px; border: 1px solid #d1d9e0; border-radius: 6px; }
.frame > header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; font-size: 14px; color: #59636e; border-radius: 6px 6px 0 0; }
.frame > header b { color: #1f2328; }
.markdown-body { padding: 16px 24px; }
</style></head>
<body><div class="frame" id="frame"><header>${escapeHtml(options.caption)}</header>
<article class="markdown-body">${renderGitHubMarkdown(options.markdown)}</article></div></body></html>`
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`)
}
