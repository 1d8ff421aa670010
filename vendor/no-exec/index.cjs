'use strict'
// @actions/core imports @actions/exec at the top of its platform.js, for getDetails(), which
// runs `lsb_release`, `sw_vers` or PowerShell to name the runner's OS. Nothing in this action
// calls it, so @actions/exec (and @actions/io, and child_process, which they load) is not
// installed: this package stands in for it, and says so if anything ever reaches it.
const notHere = (name) =>
  new Error(
    `@actions/exec's ${name} was called, but @actions/exec is not part of cloud-agent-run ` +
      '(vendor/no-exec stands in for it; see its README.md)',
  )

function exec() {
  return Promise.reject(notHere('exec'))
}

function getExecOutput() {
  return Promise.reject(notHere('getExecOutput'))
}

exports.exec = exec
exports.getExecOutput = getExecOutput
