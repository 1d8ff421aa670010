'use strict'
// @actions/http-client imports undici's ProxyAgent at the top of its module, for
// getAgentDispatcher(), which only fetch-based clients call. Nothing in this action calls it
// (the GitHub client's fetch goes through node:http, src/github/fetch.ts), so undici is not
// installed: this package stands in for it, and says so if anything ever reaches it.
const notHere = (name) =>
  new Error(
    `undici's ${name} was called, but undici is not part of cloud-agent-run ` +
      '(vendor/no-undici stands in for it; see its README.md)',
  )

// A constructor: http-client calls `new ProxyAgent(...)`.
function ProxyAgent() {
  throw notHere('ProxyAgent')
}

function fetch() {
  return Promise.reject(notHere('fetch'))
}

exports.ProxyAgent = ProxyAgent
exports.fetch = fetch
