import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module"; const __lazyBuiltin = (name, namespace) => { let loaded; const load = () => (loaded ??= __WEBPACK_EXTERNAL_createRequire(import.meta.url)(name)); return new Proxy({}, { get: (_, key) => (namespace && key === 'default' ? load() : load()[key]) }) };
/******/ var __webpack_modules__ = ({

/***/ 770:
/***/ ((module, __unused_webpack_exports, __nccwpck_require__) => {

module.exports = __nccwpck_require__(218);


/***/ }),

/***/ 218:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {

var __webpack_unused_export__;


var net = __nccwpck_require__(9278);
var tls = __nccwpck_require__(4756);
var http = __nccwpck_require__(8611);
var https = __nccwpck_require__(5692);
var events = __nccwpck_require__(4434);
var assert = __nccwpck_require__(2613);
var util = __nccwpck_require__(9023);


exports.httpOverHttp = httpOverHttp;
exports.httpsOverHttp = httpsOverHttp;
exports.httpOverHttps = httpOverHttps;
exports.httpsOverHttps = httpsOverHttps;


function httpOverHttp(options) {
  var agent = new TunnelingAgent(options);
  agent.request = http.request;
  return agent;
}

function httpsOverHttp(options) {
  var agent = new TunnelingAgent(options);
  agent.request = http.request;
  agent.createSocket = createSecureSocket;
  agent.defaultPort = 443;
  return agent;
}

function httpOverHttps(options) {
  var agent = new TunnelingAgent(options);
  agent.request = https.request;
  return agent;
}

function httpsOverHttps(options) {
  var agent = new TunnelingAgent(options);
  agent.request = https.request;
  agent.createSocket = createSecureSocket;
  agent.defaultPort = 443;
  return agent;
}


function TunnelingAgent(options) {
  var self = this;
  self.options = options || {};
  self.proxyOptions = self.options.proxy || {};
  self.maxSockets = self.options.maxSockets || http.Agent.defaultMaxSockets;
  self.requests = [];
  self.sockets = [];

  self.on('free', function onFree(socket, host, port, localAddress) {
    var options = toOptions(host, port, localAddress);
    for (var i = 0, len = self.requests.length; i < len; ++i) {
      var pending = self.requests[i];
      if (pending.host === options.host && pending.port === options.port) {
        // Detect the request to connect same origin server,
        // reuse the connection.
        self.requests.splice(i, 1);
        pending.request.onSocket(socket);
        return;
      }
    }
    socket.destroy();
    self.removeSocket(socket);
  });
}
util.inherits(TunnelingAgent, events.EventEmitter);

TunnelingAgent.prototype.addRequest = function addRequest(req, host, port, localAddress) {
  var self = this;
  var options = mergeOptions({request: req}, self.options, toOptions(host, port, localAddress));

  if (self.sockets.length >= this.maxSockets) {
    // We are over limit so we'll add it to the queue.
    self.requests.push(options);
    return;
  }

  // If we are under maxSockets create a new one.
  self.createSocket(options, function(socket) {
    socket.on('free', onFree);
    socket.on('close', onCloseOrRemove);
    socket.on('agentRemove', onCloseOrRemove);
    req.onSocket(socket);

    function onFree() {
      self.emit('free', socket, options);
    }

    function onCloseOrRemove(err) {
      self.removeSocket(socket);
      socket.removeListener('free', onFree);
      socket.removeListener('close', onCloseOrRemove);
      socket.removeListener('agentRemove', onCloseOrRemove);
    }
  });
};

TunnelingAgent.prototype.createSocket = function createSocket(options, cb) {
  var self = this;
  var placeholder = {};
  self.sockets.push(placeholder);

  var connectOptions = mergeOptions({}, self.proxyOptions, {
    method: 'CONNECT',
    path: options.host + ':' + options.port,
    agent: false,
    headers: {
      host: options.host + ':' + options.port
    }
  });
  if (options.localAddress) {
    connectOptions.localAddress = options.localAddress;
  }
  if (connectOptions.proxyAuth) {
    connectOptions.headers = connectOptions.headers || {};
    connectOptions.headers['Proxy-Authorization'] = 'Basic ' +
        new Buffer(connectOptions.proxyAuth).toString('base64');
  }

  debug('making CONNECT request');
  var connectReq = self.request(connectOptions);
  connectReq.useChunkedEncodingByDefault = false; // for v0.6
  connectReq.once('response', onResponse); // for v0.6
  connectReq.once('upgrade', onUpgrade);   // for v0.6
  connectReq.once('connect', onConnect);   // for v0.7 or later
  connectReq.once('error', onError);
  connectReq.end();

  function onResponse(res) {
    // Very hacky. This is necessary to avoid http-parser leaks.
    res.upgrade = true;
  }

  function onUpgrade(res, socket, head) {
    // Hacky.
    process.nextTick(function() {
      onConnect(res, socket, head);
    });
  }

  function onConnect(res, socket, head) {
    connectReq.removeAllListeners();
    socket.removeAllListeners();

    if (res.statusCode !== 200) {
      debug('tunneling socket could not be established, statusCode=%d',
        res.statusCode);
      socket.destroy();
      var error = new Error('tunneling socket could not be established, ' +
        'statusCode=' + res.statusCode);
      error.code = 'ECONNRESET';
      options.request.emit('error', error);
      self.removeSocket(placeholder);
      return;
    }
    if (head.length > 0) {
      debug('got illegal response body from proxy');
      socket.destroy();
      var error = new Error('got illegal response body from proxy');
      error.code = 'ECONNRESET';
      options.request.emit('error', error);
      self.removeSocket(placeholder);
      return;
    }
    debug('tunneling connection has established');
    self.sockets[self.sockets.indexOf(placeholder)] = socket;
    return cb(socket);
  }

  function onError(cause) {
    connectReq.removeAllListeners();

    debug('tunneling socket could not be established, cause=%s\n',
          cause.message, cause.stack);
    var error = new Error('tunneling socket could not be established, ' +
                          'cause=' + cause.message);
    error.code = 'ECONNRESET';
    options.request.emit('error', error);
    self.removeSocket(placeholder);
  }
};

TunnelingAgent.prototype.removeSocket = function removeSocket(socket) {
  var pos = this.sockets.indexOf(socket)
  if (pos === -1) {
    return;
  }
  this.sockets.splice(pos, 1);

  var pending = this.requests.shift();
  if (pending) {
    // If we have pending requests and a socket gets closed a new one
    // needs to be created to take over in the pool for the one that closed.
    this.createSocket(pending, function(socket) {
      pending.request.onSocket(socket);
    });
  }
};

function createSecureSocket(options, cb) {
  var self = this;
  TunnelingAgent.prototype.createSocket.call(self, options, function(socket) {
    var hostHeader = options.request.getHeader('host');
    var tlsOptions = mergeOptions({}, self.options, {
      socket: socket,
      servername: hostHeader ? hostHeader.replace(/:.*$/, '') : options.host
    });

    // 0 is dummy port for v0.6
    var secureSocket = tls.connect(0, tlsOptions);
    self.sockets[self.sockets.indexOf(socket)] = secureSocket;
    cb(secureSocket);
  });
}


function toOptions(host, port, localAddress) {
  if (typeof host === 'string') { // since v0.10
    return {
      host: host,
      port: port,
      localAddress: localAddress
    };
  }
  return host; // for v0.11 or later
}

function mergeOptions(target) {
  for (var i = 1, len = arguments.length; i < len; ++i) {
    var overrides = arguments[i];
    if (typeof overrides === 'object') {
      var keys = Object.keys(overrides);
      for (var j = 0, keyLen = keys.length; j < keyLen; ++j) {
        var k = keys[j];
        if (overrides[k] !== undefined) {
          target[k] = overrides[k];
        }
      }
    }
  }
  return target;
}


var debug;
if (process.env.NODE_DEBUG && /\btunnel\b/.test(process.env.NODE_DEBUG)) {
  debug = function() {
    var args = Array.prototype.slice.call(arguments);
    if (typeof args[0] === 'string') {
      args[0] = 'TUNNEL: ' + args[0];
    } else {
      args.unshift('TUNNEL:');
    }
    console.error.apply(console, args);
  }
} else {
  debug = function() {};
}
__webpack_unused_export__ = debug; // for test


/***/ }),

/***/ 8117:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   $$: () => (/* binding */ HEAD_MOVED_DEADLINE_MS),
/* harmony export */   AU: () => (/* binding */ PROGRESS_READ_INTERVAL_MS),
/* harmony export */   Ag: () => (/* binding */ SET_LIST_PAGE),
/* harmony export */   Cl: () => (/* binding */ MIN_REQUEST_MS),
/* harmony export */   EJ: () => (/* binding */ SIGNAL_CANCEL),
/* harmony export */   LD: () => (/* binding */ SUPERSEDED_LOOKUP_TIMEOUT_MS),
/* harmony export */   NP: () => (/* binding */ REQUEST_RETRIES),
/* harmony export */   Nv: () => (/* binding */ KEY_LOOK_MS),
/* harmony export */   PH: () => (/* binding */ REREAD_AFTER_CANCEL_MS),
/* harmony export */   PK: () => (/* binding */ CREDIT_BUDGET_CHECK),
/* harmony export */   Rc: () => (/* binding */ NEW_PASS_GRACE_MS),
/* harmony export */   Rm: () => (/* binding */ RECONCILE_PASS),
/* harmony export */   Sl: () => (/* binding */ COMMENT_OUTLAST_MS),
/* harmony export */   UE: () => (/* binding */ CANCEL_AFTER_TIMEOUT),
/* harmony export */   WP: () => (/* binding */ PAST_TIMEOUT_MS),
/* harmony export */   X2: () => (/* binding */ SET_UNLISTED_RECHECK_MS),
/* harmony export */   Xy: () => (/* binding */ GITLAB_LIMITS),
/* harmony export */   Yl: () => (/* binding */ DOWNLOAD_ATTEMPT_MS),
/* harmony export */   _o: () => (/* binding */ MAX_TIMER_MS),
/* harmony export */   a0: () => (/* binding */ POLL_INTERVAL),
/* harmony export */   dD: () => (/* binding */ POLL_FAILURE_BUDGET),
/* harmony export */   f_: () => (/* binding */ GITHUB_LIMITS),
/* harmony export */   jN: () => (/* binding */ MIN_CANCEL_REQUEST_MS),
/* harmony export */   k0: () => (/* binding */ POLL_GROWTH),
/* harmony export */   mv: () => (/* binding */ NEW_RUN_NOT_FOUND_GRACE_MS),
/* harmony export */   p9: () => (/* binding */ SUPERSEDING_LOOKUP),
/* harmony export */   qS: () => (/* binding */ CREATE_LOOKUP),
/* harmony export */   qU: () => (/* binding */ RECANCEL_PAUSE_MS),
/* harmony export */   sT: () => (/* binding */ CHILDREN_READ_MS),
/* harmony export */   sU: () => (/* binding */ HEARTBEAT_INTERVAL_MS),
/* harmony export */   t_: () => (/* binding */ COMMENT_RECHECK_PAUSES_MS),
/* harmony export */   uY: () => (/* binding */ POST_CANCEL_DEADLINE_MS),
/* harmony export */   vt: () => (/* binding */ GITHUB_CALL_DEADLINE_MS),
/* harmony export */   wL: () => (/* binding */ AGENT_WORK_DEADLINE_MS),
/* harmony export */   xH: () => (/* binding */ CONVERSATION_READ)
/* harmony export */ });
const POLL_INTERVAL = { defaultMs: 5_000, minMs: 100 };
const POLL_GROWTH = { share: 0.05, maxGrownDelayMs: 30_000 };
const MAX_TIMER_MS = 2 ** 31 - 1;
const POLL_FAILURE_BUDGET = 5;
const NEW_RUN_NOT_FOUND_GRACE_MS = 30_000;
const SET_LIST_PAGE = 500;
const SET_UNLISTED_RECHECK_MS = 60_000;
const NEW_PASS_GRACE_MS = 30_000;
const MIN_REQUEST_MS = 5_000;
const CREATE_LOOKUP = {
    delaysMs: [0, 1_000, 2_000, 4_000],
    requestMs: 5_000,
    slackMs: 60_000,
    postDeadlineMs: 60_000,
    postPauseMs: 2_000,
};
const REQUEST_RETRIES = {
    attemptMs: 30_000,
    maxRetries: 2,
    refusalRetries: 8,
    initialDelayMs: 500,
    maxDelayMs: 8_000,
    maxHintMs: 60_000,
};
const DOWNLOAD_ATTEMPT_MS = 60_000;
const SIGNAL_CANCEL = {
    afterInterruptMs: 6_500,
    afterTerminateMs: 2_000,
    decideShare: 0.6,
    exitMarginMs: 500,
};
const CANCEL_AFTER_TIMEOUT = { timeoutMs: 5_000, budgetMs: 8_000 };
const MIN_CANCEL_REQUEST_MS = 1_000;
const RECANCEL_PAUSE_MS = 250;
const POST_CANCEL_DEADLINE_MS = 30_000;
const REREAD_AFTER_CANCEL_MS = 500;
const SUPERSEDED_LOOKUP_TIMEOUT_MS = 3_000;
const CHILDREN_READ_MS = 5_000;
const SUPERSEDING_LOOKUP = {
    forMs: 5_000,
    pauseMs: 1_000,
    requestMs: 5_000,
    causeWindowMs: 60_000,
};
const KEY_LOOK_MS = 5_000;
const PROGRESS_READ_INTERVAL_MS = 30_000;
const HEARTBEAT_INTERVAL_MS = 4 * 60_000;
const CONVERSATION_READ = { timeoutMs: 30_000, maxRetries: 1 };
const AGENT_WORK_DEADLINE_MS = 5 * 60_000;
const PAST_TIMEOUT_MS = 15_000;
const CREDIT_BUDGET_CHECK = {
    deadlineMs: 60_000,
    dailyWindowMs: 24 * 60 * 60_000,
    maxPages: 20,
};
const RECONCILE_PASS = {
    deadlineMs: 4 * 60_000,
    maxPages: 50,
    answerMs: 30_000,
    commentsMs: 30_000,
    commentsMarginMs: 60 * 60_000,
};
const GITHUB_CALL_DEADLINE_MS = 8_000;
const GITHUB_LIMITS = {
    settleMs: 15_000,
    maxRetryAfterMs: 3_000,
    transientPausesMs: [500, 1_500],
};
const HEAD_MOVED_DEADLINE_MS = 3_000;
const COMMENT_RECHECK_PAUSES_MS = [300, 700];
const COMMENT_OUTLAST_MS = GITHUB_LIMITS.settleMs - GITHUB_CALL_DEADLINE_MS;
const GITLAB_LIMITS = {
    callMs: 8_000,
    transientPausesMs: [500, 1_500],
};


/***/ }),

/***/ 2613:
/***/ ((module) => {

module.exports = __lazyBuiltin("assert");

/***/ }),

/***/ 181:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("buffer");

/***/ }),

/***/ 4434:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("events");

/***/ }),

/***/ 8611:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("http");

/***/ }),

/***/ 5692:
/***/ ((module) => {

module.exports = __lazyBuiltin("https");

/***/ }),

/***/ 9278:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("net");

/***/ }),

/***/ 7067:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http");

/***/ }),

/***/ 4708:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:https");

/***/ }),

/***/ 7075:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:stream");

/***/ }),

/***/ 932:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("process");

/***/ }),

/***/ 4756:
/***/ ((module) => {

module.exports = __lazyBuiltin("tls");

/***/ }),

/***/ 9023:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("util");

/***/ }),

/***/ 9150:
/***/ ((__unused_webpack_module, exports) => {

var __webpack_unused_export__;

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

__webpack_unused_export__ = exec
__webpack_unused_export__ = getExecOutput


/***/ }),

/***/ 3489:
/***/ ((__unused_webpack_module, exports) => {

var __webpack_unused_export__;

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

exports.k = ProxyAgent
__webpack_unused_export__ = fetch


/***/ }),

/***/ 4942:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Qq: () => (/* binding */ HttpClient)
});

// UNUSED EXPORTS: Headers, HttpClientError, HttpClientResponse, HttpCodes, MediaTypes, getProxyUrl, isHttps

// EXTERNAL MODULE: external "http"
var external_http_ = __nccwpck_require__(8611);
var external_http_namespaceObject = /*#__PURE__*/__nccwpck_require__.t(external_http_, 2);
// EXTERNAL MODULE: external "https"
var external_https_ = __nccwpck_require__(5692);
var external_https_namespaceObject = __lazyBuiltin("https", true);
;// CONCATENATED MODULE: ./node_modules/@actions/http-client/lib/proxy.js
function getProxyUrl(reqUrl) {
    const usingSsl = reqUrl.protocol === 'https:';
    if (checkBypass(reqUrl)) {
        return undefined;
    }
    const proxyVar = (() => {
        if (usingSsl) {
            return process.env['https_proxy'] || process.env['HTTPS_PROXY'];
        }
        else {
            return process.env['http_proxy'] || process.env['HTTP_PROXY'];
        }
    })();
    if (proxyVar) {
        try {
            return new DecodedURL(proxyVar);
        }
        catch (_a) {
            if (!proxyVar.startsWith('http://') && !proxyVar.startsWith('https://'))
                return new DecodedURL(`http://${proxyVar}`);
        }
    }
    else {
        return undefined;
    }
}
function checkBypass(reqUrl) {
    if (!reqUrl.hostname) {
        return false;
    }
    const reqHost = reqUrl.hostname;
    if (isLoopbackAddress(reqHost)) {
        return true;
    }
    const noProxy = process.env['no_proxy'] || process.env['NO_PROXY'] || '';
    if (!noProxy) {
        return false;
    }
    // Determine the request port
    let reqPort;
    if (reqUrl.port) {
        reqPort = Number(reqUrl.port);
    }
    else if (reqUrl.protocol === 'http:') {
        reqPort = 80;
    }
    else if (reqUrl.protocol === 'https:') {
        reqPort = 443;
    }
    // Format the request hostname and hostname with port
    const upperReqHosts = [reqUrl.hostname.toUpperCase()];
    if (typeof reqPort === 'number') {
        upperReqHosts.push(`${upperReqHosts[0]}:${reqPort}`);
    }
    // Compare request host against noproxy
    for (const upperNoProxyItem of noProxy
        .split(',')
        .map(x => x.trim().toUpperCase())
        .filter(x => x)) {
        if (upperNoProxyItem === '*' ||
            upperReqHosts.some(x => x === upperNoProxyItem ||
                x.endsWith(`.${upperNoProxyItem}`) ||
                (upperNoProxyItem.startsWith('.') &&
                    x.endsWith(`${upperNoProxyItem}`)))) {
            return true;
        }
    }
    return false;
}
function isLoopbackAddress(host) {
    const hostLower = host.toLowerCase();
    return (hostLower === 'localhost' ||
        hostLower.startsWith('127.') ||
        hostLower.startsWith('[::1]') ||
        hostLower.startsWith('[0:0:0:0:0:0:0:1]'));
}
class DecodedURL extends URL {
    constructor(url, base) {
        super(url, base);
        this._decodedUsername = decodeURIComponent(super.username);
        this._decodedPassword = decodeURIComponent(super.password);
    }
    get username() {
        return this._decodedUsername;
    }
    get password() {
        return this._decodedPassword;
    }
}
//# sourceMappingURL=proxy.js.map
// EXTERNAL MODULE: ./node_modules/tunnel/index.js
var tunnel = __nccwpck_require__(770);
// EXTERNAL MODULE: ./vendor/no-undici/index.cjs
var no_undici = __nccwpck_require__(3489);
;// CONCATENATED MODULE: ./node_modules/@actions/http-client/lib/index.js
/* eslint-disable @typescript-eslint/no-explicit-any */
var __awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};





var HttpCodes;
(function (HttpCodes) {
    HttpCodes[HttpCodes["OK"] = 200] = "OK";
    HttpCodes[HttpCodes["MultipleChoices"] = 300] = "MultipleChoices";
    HttpCodes[HttpCodes["MovedPermanently"] = 301] = "MovedPermanently";
    HttpCodes[HttpCodes["ResourceMoved"] = 302] = "ResourceMoved";
    HttpCodes[HttpCodes["SeeOther"] = 303] = "SeeOther";
    HttpCodes[HttpCodes["NotModified"] = 304] = "NotModified";
    HttpCodes[HttpCodes["UseProxy"] = 305] = "UseProxy";
    HttpCodes[HttpCodes["SwitchProxy"] = 306] = "SwitchProxy";
    HttpCodes[HttpCodes["TemporaryRedirect"] = 307] = "TemporaryRedirect";
    HttpCodes[HttpCodes["PermanentRedirect"] = 308] = "PermanentRedirect";
    HttpCodes[HttpCodes["BadRequest"] = 400] = "BadRequest";
    HttpCodes[HttpCodes["Unauthorized"] = 401] = "Unauthorized";
    HttpCodes[HttpCodes["PaymentRequired"] = 402] = "PaymentRequired";
    HttpCodes[HttpCodes["Forbidden"] = 403] = "Forbidden";
    HttpCodes[HttpCodes["NotFound"] = 404] = "NotFound";
    HttpCodes[HttpCodes["MethodNotAllowed"] = 405] = "MethodNotAllowed";
    HttpCodes[HttpCodes["NotAcceptable"] = 406] = "NotAcceptable";
    HttpCodes[HttpCodes["ProxyAuthenticationRequired"] = 407] = "ProxyAuthenticationRequired";
    HttpCodes[HttpCodes["RequestTimeout"] = 408] = "RequestTimeout";
    HttpCodes[HttpCodes["Conflict"] = 409] = "Conflict";
    HttpCodes[HttpCodes["Gone"] = 410] = "Gone";
    HttpCodes[HttpCodes["TooManyRequests"] = 429] = "TooManyRequests";
    HttpCodes[HttpCodes["InternalServerError"] = 500] = "InternalServerError";
    HttpCodes[HttpCodes["NotImplemented"] = 501] = "NotImplemented";
    HttpCodes[HttpCodes["BadGateway"] = 502] = "BadGateway";
    HttpCodes[HttpCodes["ServiceUnavailable"] = 503] = "ServiceUnavailable";
    HttpCodes[HttpCodes["GatewayTimeout"] = 504] = "GatewayTimeout";
})(HttpCodes || (HttpCodes = {}));
var Headers;
(function (Headers) {
    Headers["Accept"] = "accept";
    Headers["ContentType"] = "content-type";
})(Headers || (Headers = {}));
var MediaTypes;
(function (MediaTypes) {
    MediaTypes["ApplicationJson"] = "application/json";
})(MediaTypes || (MediaTypes = {}));
/**
 * Returns the proxy URL, depending upon the supplied url and proxy environment variables.
 * @param serverUrl  The server URL where the request will be sent. For example, https://api.github.com
 */
function lib_getProxyUrl(serverUrl) {
    const proxyUrl = pm.getProxyUrl(new URL(serverUrl));
    return proxyUrl ? proxyUrl.href : '';
}
const HttpRedirectCodes = [
    HttpCodes.MovedPermanently,
    HttpCodes.ResourceMoved,
    HttpCodes.SeeOther,
    HttpCodes.TemporaryRedirect,
    HttpCodes.PermanentRedirect
];
const HttpResponseRetryCodes = [
    HttpCodes.BadGateway,
    HttpCodes.ServiceUnavailable,
    HttpCodes.GatewayTimeout
];
const RetryableHttpVerbs = ['OPTIONS', 'GET', 'DELETE', 'HEAD'];
const ExponentialBackoffCeiling = 10;
const ExponentialBackoffTimeSlice = 5;
class HttpClientError extends Error {
    constructor(message, statusCode) {
        super(message);
        this.name = 'HttpClientError';
        this.statusCode = statusCode;
        Object.setPrototypeOf(this, HttpClientError.prototype);
    }
}
class HttpClientResponse {
    constructor(message) {
        this.message = message;
    }
    readBody() {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve) => __awaiter(this, void 0, void 0, function* () {
                let output = Buffer.alloc(0);
                this.message.on('data', (chunk) => {
                    output = Buffer.concat([output, chunk]);
                });
                this.message.on('end', () => {
                    resolve(output.toString());
                });
            }));
        });
    }
    readBodyBuffer() {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve) => __awaiter(this, void 0, void 0, function* () {
                const chunks = [];
                this.message.on('data', (chunk) => {
                    chunks.push(chunk);
                });
                this.message.on('end', () => {
                    resolve(Buffer.concat(chunks));
                });
            }));
        });
    }
}
function isHttps(requestUrl) {
    const parsedUrl = new URL(requestUrl);
    return parsedUrl.protocol === 'https:';
}
class HttpClient {
    constructor(userAgent, handlers, requestOptions) {
        this._ignoreSslError = false;
        this._allowRedirects = true;
        this._allowRedirectDowngrade = false;
        this._maxRedirects = 50;
        this._allowRetries = false;
        this._maxRetries = 1;
        this._keepAlive = false;
        this._disposed = false;
        this.userAgent = this._getUserAgentWithOrchestrationId(userAgent);
        this.handlers = handlers || [];
        this.requestOptions = requestOptions;
        if (requestOptions) {
            if (requestOptions.ignoreSslError != null) {
                this._ignoreSslError = requestOptions.ignoreSslError;
            }
            this._socketTimeout = requestOptions.socketTimeout;
            if (requestOptions.allowRedirects != null) {
                this._allowRedirects = requestOptions.allowRedirects;
            }
            if (requestOptions.allowRedirectDowngrade != null) {
                this._allowRedirectDowngrade = requestOptions.allowRedirectDowngrade;
            }
            if (requestOptions.maxRedirects != null) {
                this._maxRedirects = Math.max(requestOptions.maxRedirects, 0);
            }
            if (requestOptions.keepAlive != null) {
                this._keepAlive = requestOptions.keepAlive;
            }
            if (requestOptions.allowRetries != null) {
                this._allowRetries = requestOptions.allowRetries;
            }
            if (requestOptions.maxRetries != null) {
                this._maxRetries = requestOptions.maxRetries;
            }
        }
    }
    options(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('OPTIONS', requestUrl, null, additionalHeaders || {});
        });
    }
    get(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('GET', requestUrl, null, additionalHeaders || {});
        });
    }
    del(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('DELETE', requestUrl, null, additionalHeaders || {});
        });
    }
    post(requestUrl, data, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('POST', requestUrl, data, additionalHeaders || {});
        });
    }
    patch(requestUrl, data, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('PATCH', requestUrl, data, additionalHeaders || {});
        });
    }
    put(requestUrl, data, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('PUT', requestUrl, data, additionalHeaders || {});
        });
    }
    head(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('HEAD', requestUrl, null, additionalHeaders || {});
        });
    }
    sendStream(verb, requestUrl, stream, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request(verb, requestUrl, stream, additionalHeaders);
        });
    }
    /**
     * Gets a typed object from an endpoint
     * Be aware that not found returns a null.  Other errors (4xx, 5xx) reject the promise
     */
    getJson(requestUrl_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, additionalHeaders = {}) {
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            const res = yield this.get(requestUrl, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    postJson(requestUrl_1, obj_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, obj, additionalHeaders = {}) {
            const data = JSON.stringify(obj, null, 2);
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            additionalHeaders[Headers.ContentType] =
                this._getExistingOrDefaultContentTypeHeader(additionalHeaders, MediaTypes.ApplicationJson);
            const res = yield this.post(requestUrl, data, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    putJson(requestUrl_1, obj_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, obj, additionalHeaders = {}) {
            const data = JSON.stringify(obj, null, 2);
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            additionalHeaders[Headers.ContentType] =
                this._getExistingOrDefaultContentTypeHeader(additionalHeaders, MediaTypes.ApplicationJson);
            const res = yield this.put(requestUrl, data, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    patchJson(requestUrl_1, obj_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, obj, additionalHeaders = {}) {
            const data = JSON.stringify(obj, null, 2);
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            additionalHeaders[Headers.ContentType] =
                this._getExistingOrDefaultContentTypeHeader(additionalHeaders, MediaTypes.ApplicationJson);
            const res = yield this.patch(requestUrl, data, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    /**
     * Makes a raw http request.
     * All other methods such as get, post, patch, and request ultimately call this.
     * Prefer get, del, post and patch
     */
    request(verb, requestUrl, data, headers) {
        return __awaiter(this, void 0, void 0, function* () {
            if (this._disposed) {
                throw new Error('Client has already been disposed.');
            }
            const parsedUrl = new URL(requestUrl);
            let info = this._prepareRequest(verb, parsedUrl, headers);
            // Only perform retries on reads since writes may not be idempotent.
            const maxTries = this._allowRetries && RetryableHttpVerbs.includes(verb)
                ? this._maxRetries + 1
                : 1;
            let numTries = 0;
            let response;
            do {
                response = yield this.requestRaw(info, data);
                // Check if it's an authentication challenge
                if (response &&
                    response.message &&
                    response.message.statusCode === HttpCodes.Unauthorized) {
                    let authenticationHandler;
                    for (const handler of this.handlers) {
                        if (handler.canHandleAuthentication(response)) {
                            authenticationHandler = handler;
                            break;
                        }
                    }
                    if (authenticationHandler) {
                        return authenticationHandler.handleAuthentication(this, info, data);
                    }
                    else {
                        // We have received an unauthorized response but have no handlers to handle it.
                        // Let the response return to the caller.
                        return response;
                    }
                }
                let redirectsRemaining = this._maxRedirects;
                while (response.message.statusCode &&
                    HttpRedirectCodes.includes(response.message.statusCode) &&
                    this._allowRedirects &&
                    redirectsRemaining > 0) {
                    const redirectUrl = response.message.headers['location'];
                    if (!redirectUrl) {
                        // if there's no location to redirect to, we won't
                        break;
                    }
                    const parsedRedirectUrl = new URL(redirectUrl);
                    if (parsedUrl.protocol === 'https:' &&
                        parsedUrl.protocol !== parsedRedirectUrl.protocol &&
                        !this._allowRedirectDowngrade) {
                        throw new Error('Redirect from HTTPS to HTTP protocol. This downgrade is not allowed for security reasons. If you want to allow this behavior, set the allowRedirectDowngrade option to true.');
                    }
                    // we need to finish reading the response before reassigning response
                    // which will leak the open socket.
                    yield response.readBody();
                    // strip authorization header if redirected to a different hostname
                    if (parsedRedirectUrl.hostname !== parsedUrl.hostname) {
                        for (const header in headers) {
                            // header names are case insensitive
                            if (header.toLowerCase() === 'authorization') {
                                delete headers[header];
                            }
                        }
                    }
                    // let's make the request with the new redirectUrl
                    info = this._prepareRequest(verb, parsedRedirectUrl, headers);
                    response = yield this.requestRaw(info, data);
                    redirectsRemaining--;
                }
                if (!response.message.statusCode ||
                    !HttpResponseRetryCodes.includes(response.message.statusCode)) {
                    // If not a retry code, return immediately instead of retrying
                    return response;
                }
                numTries += 1;
                if (numTries < maxTries) {
                    yield response.readBody();
                    yield this._performExponentialBackoff(numTries);
                }
            } while (numTries < maxTries);
            return response;
        });
    }
    /**
     * Needs to be called if keepAlive is set to true in request options.
     */
    dispose() {
        if (this._agent) {
            this._agent.destroy();
        }
        this._disposed = true;
    }
    /**
     * Raw request.
     * @param info
     * @param data
     */
    requestRaw(info, data) {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve, reject) => {
                function callbackForResult(err, res) {
                    if (err) {
                        reject(err);
                    }
                    else if (!res) {
                        // If `err` is not passed, then `res` must be passed.
                        reject(new Error('Unknown error'));
                    }
                    else {
                        resolve(res);
                    }
                }
                this.requestRawWithCallback(info, data, callbackForResult);
            });
        });
    }
    /**
     * Raw request with callback.
     * @param info
     * @param data
     * @param onResult
     */
    requestRawWithCallback(info, data, onResult) {
        if (typeof data === 'string') {
            if (!info.options.headers) {
                info.options.headers = {};
            }
            info.options.headers['Content-Length'] = Buffer.byteLength(data, 'utf8');
        }
        let callbackCalled = false;
        function handleResult(err, res) {
            if (!callbackCalled) {
                callbackCalled = true;
                onResult(err, res);
            }
        }
        const req = info.httpModule.request(info.options, (msg) => {
            const res = new HttpClientResponse(msg);
            handleResult(undefined, res);
        });
        let socket;
        req.on('socket', sock => {
            socket = sock;
        });
        // If we ever get disconnected, we want the socket to timeout eventually
        req.setTimeout(this._socketTimeout || 3 * 60000, () => {
            if (socket) {
                socket.end();
            }
            handleResult(new Error(`Request timeout: ${info.options.path}`));
        });
        req.on('error', function (err) {
            // err has statusCode property
            // res should have headers
            handleResult(err);
        });
        if (data && typeof data === 'string') {
            req.write(data, 'utf8');
        }
        if (data && typeof data !== 'string') {
            data.on('close', function () {
                req.end();
            });
            data.pipe(req);
        }
        else {
            req.end();
        }
    }
    /**
     * Gets an http agent. This function is useful when you need an http agent that handles
     * routing through a proxy server - depending upon the url and proxy environment variables.
     * @param serverUrl  The server URL where the request will be sent. For example, https://api.github.com
     */
    getAgent(serverUrl) {
        const parsedUrl = new URL(serverUrl);
        return this._getAgent(parsedUrl);
    }
    getAgentDispatcher(serverUrl) {
        const parsedUrl = new URL(serverUrl);
        const proxyUrl = getProxyUrl(parsedUrl);
        const useProxy = proxyUrl && proxyUrl.hostname;
        if (!useProxy) {
            return;
        }
        return this._getProxyAgentDispatcher(parsedUrl, proxyUrl);
    }
    _prepareRequest(method, requestUrl, headers) {
        const info = {};
        info.parsedUrl = requestUrl;
        const usingSsl = info.parsedUrl.protocol === 'https:';
        info.httpModule = usingSsl ? external_https_namespaceObject : external_http_namespaceObject;
        const defaultPort = usingSsl ? 443 : 80;
        info.options = {};
        info.options.host = info.parsedUrl.hostname;
        info.options.port = info.parsedUrl.port
            ? parseInt(info.parsedUrl.port)
            : defaultPort;
        info.options.path =
            (info.parsedUrl.pathname || '') + (info.parsedUrl.search || '');
        info.options.method = method;
        info.options.headers = this._mergeHeaders(headers);
        if (this.userAgent != null) {
            info.options.headers['user-agent'] = this.userAgent;
        }
        info.options.agent = this._getAgent(info.parsedUrl);
        // gives handlers an opportunity to participate
        if (this.handlers) {
            for (const handler of this.handlers) {
                handler.prepareRequest(info.options);
            }
        }
        return info;
    }
    _mergeHeaders(headers) {
        if (this.requestOptions && this.requestOptions.headers) {
            return Object.assign({}, lowercaseKeys(this.requestOptions.headers), lowercaseKeys(headers || {}));
        }
        return lowercaseKeys(headers || {});
    }
    /**
     * Gets an existing header value or returns a default.
     * Handles converting number header values to strings since HTTP headers must be strings.
     * Note: This returns string | string[] since some headers can have multiple values.
     * For headers that must always be a single string (like Content-Type), use the
     * specialized _getExistingOrDefaultContentTypeHeader method instead.
     */
    _getExistingOrDefaultHeader(additionalHeaders, header, _default) {
        let clientHeader;
        if (this.requestOptions && this.requestOptions.headers) {
            const headerValue = lowercaseKeys(this.requestOptions.headers)[header];
            if (headerValue) {
                clientHeader =
                    typeof headerValue === 'number' ? headerValue.toString() : headerValue;
            }
        }
        const additionalValue = additionalHeaders[header];
        if (additionalValue !== undefined) {
            return typeof additionalValue === 'number'
                ? additionalValue.toString()
                : additionalValue;
        }
        if (clientHeader !== undefined) {
            return clientHeader;
        }
        return _default;
    }
    /**
     * Specialized version of _getExistingOrDefaultHeader for Content-Type header.
     * Always returns a single string (not an array) since Content-Type should be a single value.
     * Converts arrays to comma-separated strings and numbers to strings to ensure type safety.
     * This was split from _getExistingOrDefaultHeader to provide stricter typing for callers
     * that assign the result to places expecting a string (e.g., additionalHeaders[Headers.ContentType]).
     */
    _getExistingOrDefaultContentTypeHeader(additionalHeaders, _default) {
        let clientHeader;
        if (this.requestOptions && this.requestOptions.headers) {
            const headerValue = lowercaseKeys(this.requestOptions.headers)[Headers.ContentType];
            if (headerValue) {
                if (typeof headerValue === 'number') {
                    clientHeader = String(headerValue);
                }
                else if (Array.isArray(headerValue)) {
                    clientHeader = headerValue.join(', ');
                }
                else {
                    clientHeader = headerValue;
                }
            }
        }
        const additionalValue = additionalHeaders[Headers.ContentType];
        // Return the first non-undefined value, converting numbers or arrays to strings if necessary
        if (additionalValue !== undefined) {
            if (typeof additionalValue === 'number') {
                return String(additionalValue);
            }
            else if (Array.isArray(additionalValue)) {
                return additionalValue.join(', ');
            }
            else {
                return additionalValue;
            }
        }
        if (clientHeader !== undefined) {
            return clientHeader;
        }
        return _default;
    }
    _getAgent(parsedUrl) {
        let agent;
        const proxyUrl = getProxyUrl(parsedUrl);
        const useProxy = proxyUrl && proxyUrl.hostname;
        if (this._keepAlive && useProxy) {
            agent = this._proxyAgent;
        }
        if (!useProxy) {
            agent = this._agent;
        }
        // if agent is already assigned use that agent.
        if (agent) {
            return agent;
        }
        const usingSsl = parsedUrl.protocol === 'https:';
        let maxSockets = 100;
        if (this.requestOptions) {
            maxSockets = this.requestOptions.maxSockets || external_http_.globalAgent.maxSockets;
        }
        // This is `useProxy` again, but we need to check `proxyURl` directly for TypeScripts's flow analysis.
        if (proxyUrl && proxyUrl.hostname) {
            const agentOptions = {
                maxSockets,
                keepAlive: this._keepAlive,
                proxy: Object.assign(Object.assign({}, ((proxyUrl.username || proxyUrl.password) && {
                    proxyAuth: `${proxyUrl.username}:${proxyUrl.password}`
                })), { host: proxyUrl.hostname, port: proxyUrl.port })
            };
            let tunnelAgent;
            const overHttps = proxyUrl.protocol === 'https:';
            if (usingSsl) {
                tunnelAgent = overHttps ? tunnel.httpsOverHttps : tunnel.httpsOverHttp;
            }
            else {
                tunnelAgent = overHttps ? tunnel.httpOverHttps : tunnel.httpOverHttp;
            }
            agent = tunnelAgent(agentOptions);
            this._proxyAgent = agent;
        }
        // if tunneling agent isn't assigned create a new agent
        if (!agent) {
            const options = { keepAlive: this._keepAlive, maxSockets };
            agent = usingSsl ? new external_https_.Agent(options) : new external_http_.Agent(options);
            this._agent = agent;
        }
        if (usingSsl && this._ignoreSslError) {
            // we don't want to set NODE_TLS_REJECT_UNAUTHORIZED=0 since that will affect request for entire process
            // http.RequestOptions doesn't expose a way to modify RequestOptions.agent.options
            // we have to cast it to any and change it directly
            agent.options = Object.assign(agent.options || {}, {
                rejectUnauthorized: false
            });
        }
        return agent;
    }
    _getProxyAgentDispatcher(parsedUrl, proxyUrl) {
        let proxyAgent;
        if (this._keepAlive) {
            proxyAgent = this._proxyAgentDispatcher;
        }
        // if agent is already assigned use that agent.
        if (proxyAgent) {
            return proxyAgent;
        }
        const usingSsl = parsedUrl.protocol === 'https:';
        proxyAgent = new no_undici/* ProxyAgent */.k(Object.assign({ uri: proxyUrl.href, pipelining: !this._keepAlive ? 0 : 1 }, ((proxyUrl.username || proxyUrl.password) && {
            token: `Basic ${Buffer.from(`${proxyUrl.username}:${proxyUrl.password}`).toString('base64')}`
        })));
        this._proxyAgentDispatcher = proxyAgent;
        if (usingSsl && this._ignoreSslError) {
            // we don't want to set NODE_TLS_REJECT_UNAUTHORIZED=0 since that will affect request for entire process
            // http.RequestOptions doesn't expose a way to modify RequestOptions.agent.options
            // we have to cast it to any and change it directly
            proxyAgent.options = Object.assign(proxyAgent.options.requestTls || {}, {
                rejectUnauthorized: false
            });
        }
        return proxyAgent;
    }
    _getUserAgentWithOrchestrationId(userAgent) {
        const baseUserAgent = userAgent || 'actions/http-client';
        const orchId = process.env['ACTIONS_ORCHESTRATION_ID'];
        if (orchId) {
            // Sanitize the orchestration ID to ensure it contains only valid characters
            // Valid characters: 0-9, a-z, _, -, .
            const sanitizedId = orchId.replace(/[^a-z0-9_.-]/gi, '_');
            return `${baseUserAgent} actions_orchestration_id/${sanitizedId}`;
        }
        return baseUserAgent;
    }
    _performExponentialBackoff(retryNumber) {
        return __awaiter(this, void 0, void 0, function* () {
            retryNumber = Math.min(ExponentialBackoffCeiling, retryNumber);
            const ms = ExponentialBackoffTimeSlice * Math.pow(2, retryNumber);
            return new Promise(resolve => setTimeout(() => resolve(), ms));
        });
    }
    _processResponse(res, options) {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve, reject) => __awaiter(this, void 0, void 0, function* () {
                const statusCode = res.message.statusCode || 0;
                const response = {
                    statusCode,
                    result: null,
                    headers: {}
                };
                // not found leads to null obj returned
                if (statusCode === HttpCodes.NotFound) {
                    resolve(response);
                }
                // get the result from the body
                function dateTimeDeserializer(key, value) {
                    if (typeof value === 'string') {
                        const a = new Date(value);
                        if (!isNaN(a.valueOf())) {
                            return a;
                        }
                    }
                    return value;
                }
                let obj;
                let contents;
                try {
                    contents = yield res.readBody();
                    if (contents && contents.length > 0) {
                        if (options && options.deserializeDates) {
                            obj = JSON.parse(contents, dateTimeDeserializer);
                        }
                        else {
                            obj = JSON.parse(contents);
                        }
                        response.result = obj;
                    }
                    response.headers = res.message.headers;
                }
                catch (err) {
                    // Invalid resource (contents not json);  leaving result obj null
                }
                // note that 3xx redirects are handled by the http layer.
                if (statusCode > 299) {
                    let msg;
                    // if exception/error in body, attempt to get better error
                    if (obj && obj.message) {
                        msg = obj.message;
                    }
                    else if (contents && contents.length > 0) {
                        // it may be the case that the exception is in the body message as string
                        msg = contents;
                    }
                    else {
                        msg = `Failed request: (${statusCode})`;
                    }
                    const err = new HttpClientError(msg, statusCode);
                    err.result = response.result;
                    reject(err);
                }
                else {
                    resolve(response);
                }
            }));
        });
    }
}
const lowercaseKeys = (obj) => Object.keys(obj).reduce((c, k) => ((c[k.toLowerCase()] = obj[k]), c), {});
//# sourceMappingURL=index.js.map

/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/******/ // expose the modules object (__webpack_modules__)
/******/ __nccwpck_require__.m = __webpack_modules__;
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/compat get default export */
/******/ (() => {
/******/ 	// getDefaultExport function for compatibility with non-harmony modules
/******/ 	__nccwpck_require__.n = (module) => {
/******/ 		var getter = module && module.__esModule ?
/******/ 			() => (module['default']) :
/******/ 			() => (module);
/******/ 		__nccwpck_require__.d(getter, { a: getter });
/******/ 		return getter;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/create fake namespace object */
/******/ (() => {
/******/ 	var getProto = Object.getPrototypeOf ? (obj) => (Object.getPrototypeOf(obj)) : (obj) => (obj.__proto__);
/******/ 	var leafPrototypes;
/******/ 	// create a fake namespace object
/******/ 	// mode & 1: value is a module id, require it
/******/ 	// mode & 2: merge all properties of value into the ns
/******/ 	// mode & 4: return value when already ns object
/******/ 	// mode & 16: return value when it's Promise-like
/******/ 	// mode & 8|1: behave like require
/******/ 	__nccwpck_require__.t = function(value, mode) {
/******/ 		if(mode & 1) value = this(value);
/******/ 		if(mode & 8) return value;
/******/ 		if(typeof value === 'object' && value) {
/******/ 			if((mode & 4) && value.__esModule) return value;
/******/ 			if((mode & 16) && typeof value.then === 'function') return value;
/******/ 		}
/******/ 		var ns = Object.create(null);
/******/ 		__nccwpck_require__.r(ns);
/******/ 		var def = {};
/******/ 		leafPrototypes = leafPrototypes || [null, getProto({}), getProto([]), getProto(getProto)];
/******/ 		for(var current = mode & 2 && value; typeof current == 'object' && !~leafPrototypes.indexOf(current); current = getProto(current)) {
/******/ 			Object.getOwnPropertyNames(current).forEach((key) => (def[key] = () => (value[key])));
/******/ 		}
/******/ 		def['default'] = () => (value);
/******/ 		__nccwpck_require__.d(ns, def);
/******/ 		return ns;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/ensure chunk */
/******/ (() => {
/******/ 	__nccwpck_require__.f = {};
/******/ 	// This file contains only the entry chunk.
/******/ 	// The chunk loading function for additional chunks
/******/ 	__nccwpck_require__.e = (chunkId) => {
/******/ 		return Promise.all(Object.keys(__nccwpck_require__.f).reduce((promises, key) => {
/******/ 			__nccwpck_require__.f[key](chunkId, promises);
/******/ 			return promises;
/******/ 		}, []));
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/get javascript chunk filename */
/******/ (() => {
/******/ 	// This function allow to reference async chunks
/******/ 	__nccwpck_require__.u = (chunkId) => {
/******/ 		// return url for filenames based on template
/******/ 		return "" + chunkId + ".index.js";
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/******/ /* webpack/runtime/make namespace object */
/******/ (() => {
/******/ 	// define __esModule on exports
/******/ 	__nccwpck_require__.r = (exports) => {
/******/ 		if(typeof Symbol !== 'undefined' && Symbol.toStringTag) {
/******/ 			Object.defineProperty(exports, Symbol.toStringTag, { value: 'Module' });
/******/ 		}
/******/ 		Object.defineProperty(exports, '__esModule', { value: true });
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/import chunk loading */
/******/ (() => {
/******/ 	// no baseURI
/******/ 	
/******/ 	// object to store loaded and loading chunks
/******/ 	// undefined = chunk not loaded, null = chunk preloaded/prefetched
/******/ 	// [resolve, Promise] = chunk loading, 0 = chunk loaded
/******/ 	var installedChunks = {
/******/ 		792: 0
/******/ 	};
/******/ 	
/******/ 	var installChunk = (data) => {
/******/ 		var {ids, modules, runtime} = data;
/******/ 		// add "modules" to the modules object,
/******/ 		// then flag all "ids" as loaded and fire callback
/******/ 		var moduleId, chunkId, i = 0;
/******/ 		for(moduleId in modules) {
/******/ 			if(__nccwpck_require__.o(modules, moduleId)) {
/******/ 				__nccwpck_require__.m[moduleId] = modules[moduleId];
/******/ 			}
/******/ 		}
/******/ 		if(runtime) runtime(__nccwpck_require__);
/******/ 		for(;i < ids.length; i++) {
/******/ 			chunkId = ids[i];
/******/ 			if(__nccwpck_require__.o(installedChunks, chunkId) && installedChunks[chunkId]) {
/******/ 				installedChunks[chunkId][0]();
/******/ 			}
/******/ 			installedChunks[ids[i]] = 0;
/******/ 		}
/******/ 	
/******/ 	}
/******/ 	
/******/ 	__nccwpck_require__.f.j = (chunkId, promises) => {
/******/ 			// import() chunk loading for javascript
/******/ 			var installedChunkData = __nccwpck_require__.o(installedChunks, chunkId) ? installedChunks[chunkId] : undefined;
/******/ 			if(installedChunkData !== 0) { // 0 means "already installed".
/******/ 	
/******/ 				// a Promise means "currently loading".
/******/ 				if(installedChunkData) {
/******/ 					promises.push(installedChunkData[1]);
/******/ 				} else {
/******/ 					if(true) { // all chunks have JS
/******/ 						// setup Promise in chunk cache
/******/ 						var promise = import("./" + __nccwpck_require__.u(chunkId)).then(installChunk, (e) => {
/******/ 							if(installedChunks[chunkId] !== 0) installedChunks[chunkId] = undefined;
/******/ 							throw e;
/******/ 						});
/******/ 						var promise = Promise.race([promise, new Promise((resolve) => (installedChunkData = installedChunks[chunkId] = [resolve]))])
/******/ 						promises.push(installedChunkData[1] = promise);
/******/ 					}
/******/ 				}
/******/ 			}
/******/ 	};
/******/ 	
/******/ 	// no prefetching
/******/ 	
/******/ 	// no preloaded
/******/ 	
/******/ 	// no external install chunk
/******/ 	
/******/ 	// no on chunks loaded
/******/ })();
/******/ 
/************************************************************************/
var __webpack_exports__ = {};

// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  C7: () => (/* reexport */ commandIo),
  Dd: () => (/* reexport */ keepYoungGenerationSmall),
  ak: () => (/* reexport */ runCli),
  gP: () => (/* binding */ runInActions),
  VN: () => (/* binding */ runMain),
  a2: () => (/* binding */ runPost),
  Kf: () => (/* binding */ src_runReconcile),
  qi: () => (/* binding */ runReport)
});

;// CONCATENATED MODULE: ./src/text/plain.ts
function errorMessage(error) {
    return error instanceof Error ? error.message : String(error);
}
function cut(text, max) {
    if (text.length <= max)
        return text;
    const end = Math.max(0, max);
    return isHighSurrogate(text.charCodeAt(end - 1)) ? text.slice(0, end - 1) : text.slice(0, end);
}
function clip(text, max) {
    return text.length > max ? `${cut(text, max)}\u2026` : text;
}
function asSentence(text) {
    let end = text.length;
    while (end > 0 && /[\s:;,-]/.test(text.charAt(end - 1)))
        end -= 1;
    const body = text.slice(0, end);
    return body === '' || /[.!?]$/.test(body) ? body : `${body}.`;
}
function isHighSurrogate(code) {
    return code >= 0xd800 && code <= 0xdbff;
}

;// CONCATENATED MODULE: ./src/text/markdown.ts

const MENTION_BREAK = '\u200d';
const COMMENT_BREAK = '\u200b';
const INDENTED_FENCE = /^([ \t]+)([`~]{3})/;
function agentMarkdown(text) {
    if (typeof text !== 'string')
        return '';
    const lines = normalize(text).split('\n');
    const out = [];
    let fence;
    for (const line of lines) {
        if (fence) {
            if (closesFence(line, fence))
                fence = undefined;
            out.push(fence ? defuseCode(line) : line);
            continue;
        }
        const marker = fenceMarker(line);
        const info = line.slice(marker.length);
        if (marker && !(marker.startsWith('`') && info.includes('`'))) {
            fence = { char: marker.charAt(0), length: marker.length };
            out.push(`${marker}${escapeInline(info)}`);
            continue;
        }
        out.push(escapeLine(line.replace(INDENTED_FENCE, (_all, indent, run) => `${indent}\\${run}`)));
    }
    if (fence)
        out.push(fence.char.repeat(fence.length));
    return out.join('\n').trim() === '' ? '' : out.join('\n');
}
function agentDetails(summary, text, open = false) {
    const body = agentMarkdown(text);
    return [
        `<details${open ? ' open' : ''}><summary>${escapeInline(plainLine(summary))}</summary>`,
        '',
        body || '_(empty)_',
        '',
        '</details>',
    ].join('\n');
}
function fenceMarker(line) {
    const char = line.charAt(0);
    if (char !== '`' && char !== '~')
        return '';
    let end = 1;
    while (line.charAt(end) === char)
        end += 1;
    return end >= 3 ? line.slice(0, end) : '';
}
function plainLine(text) {
    return normalize(text)
        .replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run))
        .trim();
}
function normalize(text) {
    return (text
        .replace(/\r\n?/g, '\n')
        .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ''));
}
function closesFence(line, fence) {
    const match = /^ {0,3}([`~]+)[ \t]*$/.exec(line);
    const run = match?.[1] ?? '';
    return run.length >= fence.length && [...run].every((char) => char === fence.char);
}
function defuseCode(text) {
    return text.replace(/<!--/g, `<!${COMMENT_BREAK}--`);
}
function escapeLine(line) {
    const closers = new RunIndex(line);
    let out = '';
    let text = '';
    let i = 0;
    while (i < line.length) {
        const char = line.charAt(i);
        if (char === '\\' && i + 1 < line.length && isAsciiPunctuation(line.charAt(i + 1))) {
            text += line.slice(i, i + 2);
            i += 2;
            continue;
        }
        if (char !== '`') {
            text += char;
            i += 1;
            continue;
        }
        const run = backtickRun(line, i);
        const close = closers.next(run, i + run);
        const content = close === -1 ? '' : line.slice(i + run, close);
        if (close === -1 || content.includes('|')) {
            text += '\\`'.repeat(run);
            i += run;
            continue;
        }
        const delimiter = '`'.repeat(run);
        out += escapeInline(text) + delimiter + defuseCode(content) + delimiter;
        text = '';
        i = close + run;
    }
    return out + escapeInline(text);
}
function escapeInline(text) {
    return text
        .replace(/\\[!-/:-@[-`{-~]|</g, (match) => (match === '<' || match === '\\<' ? '&lt;' : match))
        .replace(MENTION, `$1@${MENTION_BREAK}`);
}
const MENTION = /(^|[^A-Za-z0-9_])@(?=[A-Za-z0-9])/g;
function backtickRun(line, start) {
    let end = start;
    while (line.charAt(end) === '`')
        end += 1;
    return end - start;
}
class RunIndex {
    #starts = new Map();
    #cursor = new Map();
    constructor(line) {
        let i = 0;
        while (i < line.length) {
            if (line.charAt(i) !== '`') {
                i += 1;
                continue;
            }
            const run = backtickRun(line, i);
            const starts = this.#starts.get(run) ?? [];
            starts.push(i);
            this.#starts.set(run, starts);
            i += run;
        }
    }
    next(length, from) {
        const starts = this.#starts.get(length) ?? [];
        let cursor = this.#cursor.get(length) ?? 0;
        while (cursor < starts.length && (starts[cursor] ?? 0) < from)
            cursor += 1;
        this.#cursor.set(length, cursor);
        return cursor < starts.length ? (starts[cursor] ?? -1) : -1;
    }
}
function isAsciiPunctuation(char) {
    return /^[!-/:-@[-`{-~]$/.test(char);
}
function escapeMarkdown(text) {
    return (text
        .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
        .replace(/[&<>"'|\\`*_[\]()#!~$]/g, (char) => `&#${char.charCodeAt(0)};`)
        .replace(/\r?\n/g, '<br>'));
}
function inlineText(text) {
    let out = '';
    let last = 0;
    for (const match of text.matchAll(URL_IN_TEXT)) {
        const url = trimUrl(match[0]);
        const href = linkTarget(url);
        out += inert(text.slice(last, match.index));
        out += href ? `[${inert(url)}](<${href}>)` : inert(url);
        last = match.index + url.length;
    }
    return out + inert(text.slice(last));
}
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/g;
function trimUrl(url) {
    let open = 0;
    let close = 0;
    for (const char of url) {
        if (char === '(')
            open += 1;
        else if (char === ')')
            close += 1;
    }
    let end = url.length;
    for (;;) {
        while (end > 0 && TRAILING_PUNCTUATION.has(url.charAt(end - 1)))
            end -= 1;
        if (url.charAt(end - 1) !== ')' || close <= open)
            return url.slice(0, end);
        end -= 1;
        close -= 1;
    }
}
const TRAILING_PUNCTUATION = new Set('.,:;!?*_~\'"');
function linkTarget(url) {
    let parsed;
    try {
        parsed = new URL(url);
    }
    catch {
        return undefined;
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
        return undefined;
    return parsed.href.replace(/[<>\\\s|]/g, (char) => `%${hex(char)}`);
}
function inert(text) {
    return escapeMarkdown(text).replace(MENTION, `$1@${MENTION_BREAK}`);
}
function safeHttpUrl(value) {
    if (!value)
        return undefined;
    let url;
    try {
        url = new URL(value);
    }
    catch {
        return undefined;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
        return undefined;
    return url.href.replace(/[()<>"'\s|\\[\]`]/g, (char) => `%${hex(char)}`);
}
function hex(char) {
    return char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
}
function clipAnswer(answer, max) {
    if (answer.length <= max)
        return answer;
    return `${cut(answer, max)}\n\n_(The answer is cut here; the whole of it is in the result output and the session.)_`;
}
function codeSpan(text) {
    const flat = text
        .replace(/[\u0000-\u001f\u007f]+/g, ' ')
        .replace(/<!--/g, '<!\u200b--');
    const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((run) => run[0].length));
    const fence = '`'.repeat(longest + 1);
    const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
    return `${fence}${pad}${flat}${pad}${fence}`;
}

;// CONCATENATED MODULE: ./src/world.ts

function workflowRunUrl(run) {
    const { serverUrl, repository, runId } = run;
    if (!repository || !runId || !/^\d+$/.test(runId))
        return undefined;
    const attempt = /^\d+$/.test(run.runAttempt ?? '') ? run.runAttempt : undefined;
    const base = `${(serverUrl || 'https://github.com').replace(/\/+$/, '')}/${repository}/actions/runs/${runId}`;
    return safeHttpUrl(attempt ? `${base}/attempts/${attempt}` : base);
}

;// CONCATENATED MODULE: ./src/github/event.ts
function eventAuthorOf(payload) {
    const [user, what] = payload?.comment
        ? [payload.comment.user, 'comment']
        : payload?.review
            ? [payload.review.user, 'review']
            : [payload?.sender, 'event'];
    const login = user?.login;
    if (typeof login !== 'string' || login === '')
        return undefined;
    return { login, isBot: user?.type === 'Bot' || login.endsWith('[bot]'), what };
}
const SHA = /^[0-9a-f]{40}$/;
function eventHeadSha(payload) {
    const sha = payload?.pull_request?.head?.sha ??
        payload?.workflow_run?.head_sha ??
        payload?.check_suite?.head_sha ??
        payload?.check_run?.head_sha;
    return typeof sha === 'string' && SHA.test(sha) ? sha : undefined;
}
function eventThread(payload, repository) {
    const own = payload?.pull_request?.number;
    if (isNumber(own))
        return { number: own, pullRequest: true };
    const issue = payload?.issue?.number;
    if (isNumber(issue))
        return { number: issue, pullRequest: Boolean(payload?.issue?.pull_request) };
    const listed = payload?.workflow_run?.pull_requests ??
        payload?.check_suite?.pull_requests ??
        payload?.check_run?.pull_requests;
    if (!Array.isArray(listed))
        return undefined;
    const ofProject = listed.find((pull) => isNumber(pull?.number) && ofRepository(pull?.base?.repo?.url, repository));
    return ofProject?.number === undefined
        ? undefined
        : { number: ofProject.number, pullRequest: true };
}
function isNumber(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
function ofRepository(url, repository) {
    if (typeof url !== 'string' || !repository)
        return true;
    return url.toLowerCase().endsWith(`/repos/${repository.toLowerCase()}`);
}

;// CONCATENATED MODULE: ./src/text/log.ts

const MAX_LOG_TEXT = 4_000;
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g;
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
function safeForLog(value, max = MAX_LOG_TEXT) {
    const text = typeof value === 'string' ? value : describeValue(value);
    const flat = text
        .replace(LINE_BREAKS, ' ')
        .replace(CONTROLS, '')
        .replace(/(^|\s)::/g, '$1: :');
    return clip(flat, max);
}
function redactSecret(text, secret) {
    if (secret === '' || !text.includes(secret))
        return text;
    return text.split(secret).join('***');
}
function describeValue(value) {
    if (value === undefined)
        return 'undefined';
    if (typeof value === 'bigint')
        return value.toString();
    if (typeof value === 'symbol' || typeof value === 'function')
        return `[${typeof value}]`;
    try {
        return JSON.stringify(value) ?? String(value);
    }
    catch {
        return Object.prototype.toString.call(value);
    }
}

// EXTERNAL MODULE: ./src/timing.ts
var timing = __nccwpck_require__(8117);
;// CONCATENATED MODULE: ./src/github/octokit.ts



const ACTIONS_BOT = 'github-actions[bot]';
async function loadOctokit(token, apiUrl) {
    const { createOctokit } = await Promise.all(/* import() */[__nccwpck_require__.e(28), __nccwpck_require__.e(573)]).then(__nccwpck_require__.bind(__nccwpck_require__, 9573));
    return createOctokit(token, apiUrl || 'https://api.github.com');
}
function withDeadline(deadlineMs = timing/* GITHUB_CALL_DEADLINE_MS */.vt) {
    return { request: { signal: AbortSignal.timeout(Math.max(0, Math.floor(deadlineMs))) } };
}
function isTransient(error) {
    const { status, name, cause } = error;
    const causeName = cause?.name;
    if ([name, causeName].some((n) => n === 'TimeoutError' || n === 'AbortError'))
        return false;
    return typeof status === 'number' && status >= 500 && status <= 599;
}
class TransientFailure extends Error {
    status;
    last;
    attempts;
    constructor(last, attempts) {
        super(errorMessage(last));
        this.name = 'TransientFailure';
        this.last = last;
        this.attempts = attempts;
        this.status = last.status;
    }
    get answered() {
        return this.last.response !== undefined;
    }
}
async function withRetries(call, options = {}) {
    const { pausesMs = timing/* GITHUB_LIMITS */.f_.transientPausesMs, deadlineMs = timing/* GITHUB_CALL_DEADLINE_MS */.vt } = options;
    const deadline = withDeadline(deadlineMs);
    const endsAt = Date.now() + deadlineMs;
    for (let attempt = 1;; attempt++) {
        try {
            return await call(deadline);
        }
        catch (error) {
            if (!isTransient(error))
                throw error;
            if (options.tookEffect) {
                const made = await options.tookEffect(deadline).catch(() => {
                    throw new TransientFailure(error, attempt);
                });
                if (made !== undefined)
                    return made;
            }
            const pause = pausesMs[attempt - 1];
            if (pause === undefined || Date.now() + pause >= endsAt) {
                throw new TransientFailure(error, attempt);
            }
            await new Promise((resolve) => setTimeout(resolve, pause));
        }
    }
}
function failureHint(error, permission) {
    if (error instanceof TransientFailure) {
        const times = error.attempts === 1 ? 'once' : `on each of ${error.attempts} attempts`;
        return error.answered
            ? ` GitHub failed (HTTP ${error.status}) ${times}.`
            : ` The connection to GitHub failed ${times}.`;
    }
    return error.status === 403 ? ` ${permission}` : '';
}
async function tokenIdentity(octokit, deadline = withDeadline()) {
    try {
        const { data } = await octokit.rest.users.getAuthenticated(deadline);
        return data.login;
    }
    catch (error) {
        if (error.status === 403)
            return ACTIONS_BOT;
        throw error;
    }
}
function reasonOf(error) {
    return safeForLog(errorMessage(error), 500);
}

;// CONCATENATED MODULE: ./src/github/thread.ts

const THREAD_EVENTS = [
    'pull_request',
    'pull_request_target',
    'pull_request_review',
    'issues',
    'issue_comment',
];
function threadOf(eventName, payload, repository) {
    if (!THREAD_EVENTS.includes(eventName)) {
        return {
            kind: 'none',
            reason: `the ${eventName || 'unknown'} event has no pull request or issue to comment on (only ${THREAD_EVENTS.join(', ')} do)`,
        };
    }
    if (!payload) {
        return { kind: 'none', reason: 'the event payload (GITHUB_EVENT_PATH) cannot be read' };
    }
    const issueNumber = eventThread(payload)?.number;
    if (!repository || issueNumber === undefined) {
        return { kind: 'none', reason: `the ${eventName} event names no pull request or issue` };
    }
    return { kind: 'found', thread: { ...repository, issueNumber } };
}

;// CONCATENATED MODULE: ./src/github/context.ts




class GitHubContext {
    repository;
    eventName;
    event;
    thread;
    named;
    pullRequest;
    eventHeadSha;
    sha;
    workflowRun;
    serverUrl;
    step;
    hasToken;
    #client;
    #octokit;
    constructor(token, world, approvedHead) {
        const [owner, repo] = (world.repository ?? '').split('/');
        this.repository = owner && repo ? { owner, repo } : undefined;
        this.eventName = world.eventName ?? '';
        this.event = world.event;
        this.thread = threadOf(this.eventName, this.event, this.repository);
        this.named = eventThread(this.event, world.repository);
        this.pullRequest = this.named?.pullRequest ? this.named.number : undefined;
        this.eventHeadSha = approvedHead ?? eventHeadSha(this.event);
        this.sha = context_SHA.test(world.sha ?? '') ? world.sha : undefined;
        this.workflowRun = workflowRunUrl(world);
        this.serverUrl = world.serverUrl;
        this.step = `${world.job ?? 'job'}/${world.action ?? 'step'}`;
        this.hasToken = token !== '';
        this.#client = () => loadOctokit(token, world.apiUrl);
    }
    client() {
        this.#octokit ??= this.#client();
        return this.#octokit;
    }
}
const context_SHA = /^[0-9a-f]{40}$/;

;// CONCATENATED MODULE: ./src/text/format.ts
function formatDuration(ms, precision = 'rounded') {
    if (precision === 'exact' && ms % 1000 !== 0)
        return `${ms}ms`;
    const seconds = Math.round(ms / 1000);
    if (seconds < 60)
        return `${seconds}s`;
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60)
        return `${minutes}m ${seconds % 60}s`;
    return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
function formatNumberOutput(value) {
    return value === undefined ? '' : String(roundTo(value, 6));
}
function formatDecimal(value, maxDigits, minDigits = 0) {
    if (!Number.isFinite(value))
        return String(value);
    const { whole, fraction } = roundHalfExpand(Math.abs(value), maxDigits);
    const kept = fraction.replace(/0+$/, '').padEnd(minDigits, '0');
    const sign = value < 0 || Object.is(value, -0) ? '-' : '';
    return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${kept ? `.${kept}` : ''}`;
}
function roundHalfExpand(abs, maxDigits) {
    const [mantissa = '0', exponent = '0'] = abs.toExponential().split('e');
    const digits = mantissa.replace('.', '');
    const wholeDigits = Number(exponent) + 1;
    let point = Math.max(wholeDigits, 1);
    const padded = ('0'.repeat(point - wholeDigits) + digits).padEnd(point + maxDigits + 1, '0');
    let kept = padded.slice(0, point + maxDigits);
    if ((padded[point + maxDigits] ?? '0') >= '5') {
        const carried = (BigInt(kept) + 1n).toString().padStart(kept.length, '0');
        if (carried.length > kept.length)
            point += 1;
        kept = carried;
    }
    return { whole: kept.slice(0, point).replace(/^0+(?=\d)/, ''), fraction: kept.slice(point) };
}
function formatCredits(credits) {
    if (isBelowCent(credits))
        return 'less than 0.01 credits';
    const amount = formatDecimal(credits, 2);
    return `${amount} ${amount === '1' ? 'credit' : 'credits'}`;
}
function formatUsd(usd) {
    if (isBelowCent(usd))
        return 'less than $0.01';
    const amount = formatDecimal(usd, 2, 2);
    return amount.startsWith('-') ? `-$${amount.slice(1)}` : `$${amount}`;
}
function isBelowCent(amount) {
    return amount > 0 && amount < 0.005;
}
function roundTo(value, digits) {
    const factor = 10 ** digits;
    return Math.round(value * factor) / factor;
}

;// CONCATENATED MODULE: ./src/agent/cost.ts

const CREDIT_PARTS = ['compute_cost', 'inference_cost', 'platform_cost'];
const USD_PARTS = CREDIT_PARTS.map((part) => `${part}_usd`);
function creditsSpent(run) {
    return costOf(run.request_usage).credits ?? 0;
}
function costOf(requestUsage) {
    if (typeof requestUsage !== 'object' || requestUsage === null) {
        return { credits: undefined, usd: undefined };
    }
    const usage = requestUsage;
    return { credits: sumOf(usage, CREDIT_PARTS), usd: sumOf(usage, USD_PARTS) };
}
function sumOf(usage, parts) {
    let sum;
    for (const part of parts) {
        const value = usage[part];
        if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
            sum = (sum ?? 0) + value;
    }
    return sum === undefined ? undefined : roundTo(sum, 6);
}
function describeCost(cost) {
    const parts = [
        cost.credits === undefined ? undefined : formatCredits(cost.credits),
        cost.usd === undefined ? undefined : formatUsd(cost.usd),
    ].filter((part) => part !== undefined);
    return parts.length > 0 ? parts.join(', ') : undefined;
}
function costSince(now, before) {
    const minus = (a, b) => a === undefined ? undefined : Math.max(0, a - (b ?? 0));
    return { credits: minus(now.credits, before?.credits), usd: minus(now.usd, before?.usd) };
}

;// CONCATENATED MODULE: ./src/model/tree.ts



function isChildRun(run) {
    if (typeof run.parent_run_id === 'string' && run.parent_run_id !== '')
        return true;
    return (typeof run.root_run_id === 'string' && run.root_run_id !== '' && run.root_run_id !== run.run_id);
}
function ownRuns(runs) {
    return runs.filter((run) => !isChildRun(run));
}
function rootIdOf(run) {
    if (typeof run.root_run_id === 'string' && run.root_run_id !== '')
        return run.root_run_id;
    if (typeof run.parent_run_id === 'string' && run.parent_run_id !== '')
        return run.parent_run_id;
    return run.run_id;
}
function childrenOf(runs, rootId) {
    const seen = new Set();
    return runs.filter((run) => {
        if (run.run_id === rootId || seen.has(run.run_id) || !isChildRun(run))
            return false;
        if (rootIdOf(run) !== rootId && run.parent_run_id !== rootId)
            return false;
        seen.add(run.run_id);
        return true;
    });
}
const NO_COST = { credits: undefined, usd: undefined };
function treeCostOf(run, children = []) {
    if (children.length === 0)
        return run ? costOf(run.request_usage) : NO_COST;
    const seen = new Set();
    let credits;
    let usd;
    for (const one of run ? [run, ...children] : children) {
        if (seen.has(one.run_id))
            continue;
        seen.add(one.run_id);
        const cost = costOf(one.request_usage);
        if (cost.credits !== undefined)
            credits = (credits ?? 0) + cost.credits;
        if (cost.usd !== undefined)
            usd = (usd ?? 0) + cost.usd;
    }
    return {
        credits: credits === undefined ? undefined : roundTo(credits, 6),
        usd: usd === undefined ? undefined : roundTo(usd, 6),
    };
}
function mergeChildren(children, seen) {
    const byId = new Map((children ?? []).map((child) => [child.run_id, child]));
    for (const child of seen)
        byId.set(child.run_id, child);
    return [...byId.values()];
}
function childRunsBlock(children) {
    if (!children || children.length === 0)
        return undefined;
    const lines = children.map((child) => {
        const parts = [codeSpan(child.run_id), escapeMarkdown(child.state)];
        const session = safeHttpUrl(child.session_link);
        if (session)
            parts.push(`[Session](${session})`);
        const cost = describeCost(costOf(child.request_usage));
        if (cost)
            parts.push(escapeMarkdown(cost));
        return `- ${parts.join(' \u00b7 ')}`;
    });
    const title = `The agent started ${children.length} run${children.length === 1 ? '' : 's'}`;
    return `<details><summary>${title}</summary>\n\n${lines.join('\n')}\n\n</details>`;
}

;// CONCATENATED MODULE: ./src/api/wire.gen.ts
const pathsApiV1AgentGetParametersQuerySort_byValues = (/* unused pure expression or super */ null && (['name', 'last_run']));
const pathsApiV1AgentRunsGetParametersQuerySort_byValues = (/* unused pure expression or super */ null && (['updated_at', 'created_at', 'title', 'agent']));
const pathsApiV1AgentRunsGetParametersQuerySort_orderValues = (/* unused pure expression or super */ null && (['asc', 'desc']));
const pathsApiV1AgentRunsGetParametersQueryArtifact_typeValues = (/* unused pure expression or super */ null && (['PLAN', 'PULL_REQUEST', 'SCREENSHOT', 'FILE']));
const pathsApiV1AgentEventsRunIdPostRequestBodyContentApplicationJsonEvent_typeValues = (/* unused pure expression or super */ null && ([
    'run_in_progress',
    'run_succeeded',
    'run_failed',
    'run_errored',
    'run_blocked',
    'run_cancelled',
]));
const pathsApiV1AgentEnvironmentsGetParametersQuerySort_byValues = (/* unused pure expression or super */ null && (['name', 'last_updated']));
const conversationMessageRoleValues = (/* unused pure expression or super */ null && (['user', 'assistant', 'tool', 'system']));
const textContentBlockTypeValues = (/* unused pure expression or super */ null && (['text']));
const actionCategoryValues = (/* unused pure expression or super */ null && (['command', 'files', 'search', 'integration', 'documents', 'computer', 'review', 'skill']));
const actionStateValues = (/* unused pure expression or super */ null && (['running', 'completed', 'failed', 'denied']));
const actionContentBlockTypeValues = (/* unused pure expression or super */ null && (['action']));
const actionResultContentBlockTypeValues = (/* unused pure expression or super */ null && (['action_result']));
const eventContentBlockTypeValues = (/* unused pure expression or super */ null && (['event']));
const planArtifactArtifact_typeValues = (/* unused pure expression or super */ null && (['PLAN']));
const pullRequestArtifactArtifact_typeValues = (/* unused pure expression or super */ null && (['PULL_REQUEST']));
const screenshotArtifactArtifact_typeValues = (/* unused pure expression or super */ null && (['SCREENSHOT']));
const fileArtifactArtifact_typeValues = (/* unused pure expression or super */ null && (['FILE']));
const runCreatorInfoTypeValues = (/* unused pure expression or super */ null && (['user', 'service_account']));
const runStateValues = [
    'QUEUED',
    'PENDING',
    'CLAIMED',
    'INPROGRESS',
    'SUCCEEDED',
    'FAILED',
    'BLOCKED',
    'ERROR',
    'CANCELLED',
];
const runSourceTypeValues = (/* unused pure expression or super */ null && ([
    'LINEAR',
    'API',
    'SLACK',
    'LOCAL',
    'SCHEDULED_AGENT',
    'WEB_APP',
    'GITHUB_ACTION',
    'CLOUD_MODE',
    'CLI',
    'ORCHESTRATION',
]));
const runExecutionLocationValues = (/* unused pure expression or super */ null && (['LOCAL', 'REMOTE']));
const harnessTypeValues = (/* unused pure expression or super */ null && (['oz', 'claude']));
const planArtifactResponseArtifact_typeValues = (/* unused pure expression or super */ null && (['PLAN']));
const screenshotArtifactResponseArtifact_typeValues = (/* unused pure expression or super */ null && (['SCREENSHOT']));
const fileArtifactResponseArtifact_typeValues = (/* unused pure expression or super */ null && (['FILE']));
const scopeTypeValues = (/* unused pure expression or super */ null && (['User', 'Team']));
const platformErrorCodeValues = (/* unused pure expression or super */ null && ([
    'insufficient_credits',
    'feature_not_available',
    'external_authentication_required',
    'not_authorized',
    'invalid_request',
    'resource_not_found',
    'budget_exceeded',
    'integration_disabled',
    'integration_not_configured',
    'operation_not_supported',
    'environment_setup_failed',
    'content_policy_violation',
    'conflict',
    'authentication_required',
    'resource_unavailable',
    'internal_error',
]));
const uploadTargetMethodValues = (/* unused pure expression or super */ null && (['PUT', 'POST']));
const modelInfoProviderValues = (/* unused pure expression or super */ null && (['OPENAI', 'ANTHROPIC', 'GOOGLE', 'UNKNOWN']));
const modelInfoDisable_reasonValues = (/* unused pure expression or super */ null && (['PROVIDER_OUTAGE', 'OUT_OF_REQUESTS', 'ADMIN_DISABLED', 'REQUIRES_UPGRADE']));
const reportPullRequestArtifactRequestArtifact_typeValues = (/* unused pure expression or super */ null && (['PULL_REQUEST']));
const followupOutcomeValues = (/* unused pure expression or super */ null && (['live_session', 'queued_prompt', 'handoff_execution', 'queue_pending']));

;// CONCATENATED MODULE: ./src/api/types.ts

const KNOWN_RUN_STATES = runStateValues;

;// CONCATENATED MODULE: ./src/model/states.ts

function isKnownState(state) {
    return KNOWN_RUN_STATES.includes(state);
}
function meaningOf(state) {
    if (!isKnownState(state))
        return 'unknown';
    switch (state) {
        case 'SUCCEEDED':
            return 'succeeded';
        case 'FAILED':
        case 'ERROR':
        case 'CANCELLED':
            return 'failed';
        case 'QUEUED':
        case 'PENDING':
        case 'CLAIMED':
        case 'INPROGRESS':
            return 'active';
        case 'BLOCKED':
            return 'blocked';
        default:
            return unreachable(state);
    }
}
function isTerminal(state) {
    const meaning = meaningOf(state);
    return meaning === 'succeeded' || meaning === 'failed';
}
function unreachable(state) {
    throw new Error(`Unhandled run state ${String(state)}`);
}

;// CONCATENATED MODULE: ./src/model/set.ts



function runsNeeded(rule, taskCount) {
    switch (rule.kind) {
        case 'all':
            return taskCount;
        case 'any':
            return 1;
        case 'at-least':
            return rule.count;
    }
}
function passWhenStanding(rule, counts) {
    const needed = runsNeeded(rule, counts.tasks);
    if (counts.succeeded >= needed)
        return 'met';
    const stillPossible = counts.tasks - counts.notSucceeded;
    return stillPossible < needed ? 'cannot-be-met' : 'open';
}
function describePassWhen(rule, taskCount) {
    switch (rule.kind) {
        case 'all':
            return `all ${taskCount} runs`;
        case 'any':
            return `at least one of ${taskCount} runs`;
        case 'at-least':
            return `at least ${rule.count} of ${taskCount} runs`;
    }
}
function standingOf(record) {
    if (record.createError !== undefined)
        return 'not-succeeded';
    if (record.handedOff)
        return record.handedOff.passes ? 'succeeded' : 'not-succeeded';
    if (record.invalidOutput)
        return 'not-succeeded';
    if (!record.run || !isTerminal(record.run.state))
        return 'open';
    return meaningOf(record.run.state) === 'succeeded' ? 'succeeded' : 'not-succeeded';
}
function taskLabel(task) {
    const title = task.request.title;
    return `task ${task.index + 1}${title ? ` (${clip(title, 79)})` : ''}`;
}
function passWhenText(rule) {
    return rule.kind === 'at-least' ? String(rule.count) : rule.kind;
}
function passWhenOf(text, taskCount) {
    if (text === 'all' || text === 'any')
        return { kind: text };
    if (!text || !/^\d{1,6}$/.test(text))
        return undefined;
    const count = Number(text);
    return count >= 1 && count <= taskCount ? { kind: 'at-least', count } : undefined;
}
function sumCredits(tasks) {
    let sum;
    for (const task of tasks) {
        const credits = treeCostOf(task.run, task.children).credits;
        if (credits !== undefined)
            sum = (sum ?? 0) + credits;
    }
    return sum;
}
function sumUsd(tasks) {
    let sum;
    for (const task of tasks) {
        const usd = treeCostOf(task.run, task.children).usd;
        if (usd !== undefined)
            sum = (sum ?? 0) + usd;
    }
    return sum;
}
function isDetached(record) {
    return record.end?.kind === 'started';
}

;// CONCATENATED MODULE: ./src/model/handoff.ts

const HANDOFF_KEYS = {
    thread: 'gh_thread',
    key: 'gh_key',
    wait: 'gh_wait',
    report: 'gh_report',
    tasks: 'gh_tasks',
    passWhen: 'gh_pass_when',
    steer: 'gh_steer',
};
const STEP_KEYS = {
    repository: 'gh_repository',
    workflowRunId: 'gh_run_id',
    workflow: 'gh_workflow',
    attempt: 'gh_run_attempt',
    headSha: 'gh_head_sha',
    set: 'gh_set',
    task: 'gh_task',
};
function handoffMetadata(facts) {
    const report = [facts.comment ? 'comment' : '', facts.commitStatus ? 'status' : '']
        .filter(Boolean)
        .join(',');
    return {
        ...(facts.thread === undefined ? {} : { [HANDOFF_KEYS.thread]: String(facts.thread) }),
        [HANDOFF_KEYS.key]: facts.key,
        [HANDOFF_KEYS.wait]: String(facts.wait),
        ...(facts.steer ? { [HANDOFF_KEYS.steer]: 'true' } : {}),
        [HANDOFF_KEYS.report]: report,
        ...(facts.set
            ? {
                [HANDOFF_KEYS.tasks]: String(facts.set.tasks),
                [HANDOFF_KEYS.passWhen]: facts.set.passWhen,
            }
            : {}),
    };
}
const handoff_SHA = /^[0-9a-f]{40}$/;
const REPOSITORY = /^[\w.-]+\/[\w.-]+$/;
function readHandoff(metadata) {
    if (typeof metadata !== 'object' || metadata === null)
        return undefined;
    const values = metadata;
    const text = (key) => (typeof values[key] === 'string' ? values[key] : undefined);
    const repository = text(STEP_KEYS.repository);
    const set = text(STEP_KEYS.set);
    const wait = text(HANDOFF_KEYS.wait) ?? (set ? 'true' : undefined);
    const key = text(HANDOFF_KEYS.key) ?? (set ? '' : undefined);
    if (!repository || !REPOSITORY.test(repository) || key === undefined || (!key && !set)) {
        return undefined;
    }
    if (wait !== 'true' && wait !== 'false')
        return undefined;
    const report = set && wait === 'true' ? [] : (text(HANDOFF_KEYS.report) ?? '').split(',');
    const thread = Number(text(HANDOFF_KEYS.thread));
    const attempt = Number(text(STEP_KEYS.attempt));
    const workflowRunId = text(STEP_KEYS.workflowRunId);
    const headSha = text(STEP_KEYS.headSha);
    return {
        repository,
        workflowRunId: workflowRunId && /^\d{1,20}$/.test(workflowRunId) ? workflowRunId : undefined,
        attempt: Number.isSafeInteger(attempt) && attempt > 0 ? attempt : undefined,
        headSha: headSha && handoff_SHA.test(headSha) ? headSha : undefined,
        thread: Number.isSafeInteger(thread) && thread > 0 ? thread : undefined,
        key,
        waits: wait === 'true',
        comment: report.includes('comment'),
        commitStatus: report.includes('status'),
        ...(set ? { set, ...setShapeOf(text) } : {}),
    };
}
function setShapeOf(text) {
    const tasks = Number(text(HANDOFF_KEYS.tasks));
    const task = Number(text(STEP_KEYS.task));
    if (!Number.isSafeInteger(tasks) || tasks < 1)
        return {};
    const passWhen = passWhenOf(text(HANDOFF_KEYS.passWhen), tasks);
    return {
        ...(Number.isSafeInteger(task) && task >= 0 && task < tasks ? { task } : {}),
        tasks,
        ...(passWhen ? { passWhen } : {}),
    };
}

;// CONCATENATED MODULE: ./src/github/handoff.ts

function stepHandoff(settings, home) {
    const { github } = settings;
    return handoffMetadata({
        thread: home.thread,
        key: github.key,
        wait: settings.wait,
        comment: github.comment,
        commitStatus: github.commitStatus,
        steer: settings.previousRun === 'steer',
    });
}
function setHandoff(github, home, set) {
    return handoffMetadata({
        thread: home.thread,
        key: github.key,
        wait: set.wait,
        comment: !set.wait && github.comment,
        commitStatus: !set.wait && github.commitStatus,
        set: { tasks: set.tasks, passWhen: set.passWhen },
    });
}
function githubThread(context) {
    return { thread: context.named?.number, pullRequest: context.pullRequest };
}
function continueSource(home, head) {
    return { home, ...(head ? { head } : {}) };
}

;// CONCATENATED MODULE: ./src/model/home.ts

const FORGE_KEY = 'gh_forge';
function homeOf(world, github = {
    thread: undefined,
    pullRequest: undefined,
}) {
    if (world.forge === 'github') {
        return {
            forge: 'github',
            project: world.project,
            thread: github.thread,
            change: github.pullRequest,
        };
    }
    const { project, thread } = world;
    const forge = world.forge ?? world.projectForge;
    return { forge, project, thread, change: thread, ...(world.sha ? { head: world.sha } : {}) };
}
function homeScope(home, options = { byThread: true }) {
    if (!home.project)
        return undefined;
    return {
        [STEP_KEYS.repository]: home.project,
        ...(options.byThread && home.thread !== undefined
            ? { [HANDOFF_KEYS.thread]: String(home.thread) }
            : {}),
    };
}
function ofHomeForge(run, home) {
    const forge = forgeTagOf(run);
    return forge === 'none' || home.forge === undefined || forge === home.forge;
}
function forgeTagOf(run) {
    const metadata = run.metadata;
    const shown = typeof metadata === 'object' && metadata !== null
        ? metadata[FORGE_KEY]
        : undefined;
    return typeof shown === 'string' ? shown : 'github';
}
function changeName(home, change) {
    switch (home.forge) {
        case 'github':
            return `pull request #${change}`;
        case 'gitlab':
            return `merge request !${change}`;
        case undefined:
            return `thread ${change}`;
    }
}
function homeOfTag(metadata) {
    const forge = metadata[FORGE_KEY];
    const thread = Number(metadata[HANDOFF_KEYS.thread]);
    const known = Number.isSafeInteger(thread) && thread > 0 ? thread : undefined;
    return {
        forge: forge === 'gitlab' ? 'gitlab' : forge === 'none' ? undefined : 'github',
        project: metadata[STEP_KEYS.repository] || undefined,
        thread: known,
        change: known,
    };
}
function describeHome(home) {
    const project = home.project ?? 'no project';
    if (home.change !== undefined)
        return `${project} ${changeName(home, home.change)}`;
    return home.thread === undefined ? project : `${project} #${home.thread}`;
}

;// CONCATENATED MODULE: ./src/api/errors.ts



const describe = (request) => `${request.method} ${request.path}`;
class AgentApiError extends Error {
    name = 'AgentApiError';
    request;
    constructor(message, request, options) {
        super(message, options);
        this.request = request;
    }
}
class ApiConnectionError extends AgentApiError {
    name = 'ApiConnectionError';
    requestSent;
    code;
    constructor(request, cause, requestSent) {
        const code = errorCode(cause);
        const reason = errorMessage(cause);
        super(`${describe(request)} failed: cannot reach the service (${reason}). Check base_url, and on ` +
            'a self-hosted runner its proxy (HTTPS_PROXY, NO_PROXY) and firewall.', request, { cause });
        this.requestSent = requestSent;
        this.code = code;
    }
}
class ApiTimeoutError extends ApiConnectionError {
    name = 'ApiTimeoutError';
    timeoutMs;
    constructor(request, timeoutMs, reason) {
        const why = reason ?? `no answer within ${formatDuration(timeoutMs, 'exact')}`;
        super(request, new Error(why), true);
        this.message = `${describe(request)} timed out: ${why}`;
        this.timeoutMs = timeoutMs;
    }
}
class ApiTlsError extends ApiConnectionError {
    name = 'ApiTlsError';
    constructor(request, cause) {
        super(request, cause, false);
        const reason = errorMessage(cause);
        this.message =
            `${describe(request)} failed: the service's TLS certificate cannot be verified (${this.code ?? 'TLS'}: ${safeForLog(reason, 200)}). ` +
                'Nothing reached the service. If a proxy inspects TLS (as on many self-hosted runners), give Node its CA certificate with the NODE_EXTRA_CA_CERTS environment variable; never turn verification off.';
    }
}
class ApiAbortedError extends AgentApiError {
    name = 'ApiAbortedError';
    constructor(request) {
        super(`${describe(request)} was aborted`, request);
    }
}
class ApiResponseFormatError extends AgentApiError {
    name = 'ApiResponseFormatError';
    status;
    constructor(request, status, problem) {
        super(`${describe(request)} answered ${status} with ${safeForLog(problem, 300)}`, request);
        this.status = status;
    }
}
class DownloadError extends AgentApiError {
    name = 'DownloadError';
    status;
    constructor(request, status) {
        const hint = status === 403 ? ' (the signed URL may have expired; ask for a new one)' : '';
        super(`${describe(request)} answered ${status}${hint}`, request);
        this.status = status;
    }
}
class ApiStatusError extends AgentApiError {
    name = 'ApiStatusError';
    status;
    code;
    detail;
    traceId;
    problem;
    headers;
    constructor(request, status, headers, problem, bodyExcerpt) {
        const code = textOrUndefined(problemCode(problem));
        const detail = textOrUndefined(problem?.detail ?? problem?.error ?? problem?.title);
        const traceId = textOrUndefined(problem?.trace_id);
        super(statusMessage(request, status, code, detail ?? bodyExcerpt, traceId), request);
        this.status = status;
        this.code = code;
        this.detail = detail;
        this.traceId = traceId;
        this.problem = problem;
        this.headers = headers;
    }
}
class BadRequestError extends ApiStatusError {
    name = 'BadRequestError';
}
class AuthenticationError extends ApiStatusError {
    name = 'AuthenticationError';
}
class PermissionDeniedError extends ApiStatusError {
    name = 'PermissionDeniedError';
}
class NotFoundError extends ApiStatusError {
    name = 'NotFoundError';
}
class MethodNotAllowedError extends ApiStatusError {
    name = 'MethodNotAllowedError';
}
class ConflictError extends ApiStatusError {
    name = 'ConflictError';
}
class UnprocessableEntityError extends ApiStatusError {
    name = 'UnprocessableEntityError';
}
class SessionGoneError extends ApiStatusError {
    name = 'SessionGoneError';
    constructor(...args) {
        super(...args);
        this.message +=
            " The run's session is gone: start a new run with this run's conversation_id to carry the conversation on.";
    }
}
class RateLimitError extends ApiStatusError {
    name = 'RateLimitError';
}
class InternalServerError extends ApiStatusError {
    name = 'InternalServerError';
}
const STATUS_CLASSES = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    409: ConflictError,
    410: SessionGoneError,
    422: UnprocessableEntityError,
    429: RateLimitError,
};
function errorForStatus(request, status, headers, body) {
    const problem = parseProblem(body);
    const ErrorClass = STATUS_CLASSES[status] ?? (status >= 500 ? InternalServerError : ApiStatusError);
    return new ErrorClass(request, status, headers, problem, excerpt(body));
}
const HINTS = {
    '401': 'Check the api_key input: the key is missing, wrong, expired or revoked.',
    '403': 'The api_key is valid but may not do this; check its owner and permissions.',
    insufficient_credits: 'The account has run out of credits.',
    budget_exceeded: 'The team has reached its spending budget.',
    content_policy_violation: 'The prompt was refused by the content policy.',
};
function statusMessage(request, status, code, detail, traceId) {
    const parts = [`${describe(request)} \u2192 ${status}${code ? ` ${safeForLog(code, 100)}` : ''}`];
    const shown = safeForLog(detail, 1000);
    if (shown)
        parts[0] += `: ${shown}${/[.!?]$/.test(shown) ? '' : '.'}`;
    const hint = (code && HINTS[code]) ?? HINTS[String(status)];
    if (hint)
        parts.push(hint);
    if (traceId)
        parts.push(`(trace_id ${safeForLog(traceId, 100)})`);
    return parts.join(' ');
}
function parseProblem(body) {
    try {
        const parsed = JSON.parse(body);
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
            ? parsed
            : undefined;
    }
    catch {
        return undefined;
    }
}
function textOrUndefined(value) {
    if (typeof value === 'string')
        return value;
    if (typeof value === 'number' || typeof value === 'boolean')
        return String(value);
    return undefined;
}
function problemCode(problem) {
    const type = problem?.type;
    if (typeof type !== 'string' || type === '' || type === 'about:blank')
        return undefined;
    return type.split('/').filter(Boolean).pop();
}
function excerpt(body, max = 200) {
    const flat = withoutTags(body).replace(/\s+/g, ' ').trim();
    if (flat === '')
        return '';
    return safeForLog(clip(flat, max));
}
function withoutTags(text) {
    let out = '';
    let from = 0;
    for (;;) {
        const open = text.indexOf('<', from);
        const close = open === -1 ? -1 : text.indexOf('>', open + 1);
        if (close === -1)
            return out + text.slice(from);
        out += `${text.slice(from, open)} `;
        from = close + 1;
    }
}
function errorCode(cause) {
    if (typeof cause === 'object' && cause !== null && 'code' in cause) {
        const { code } = cause;
        return typeof code === 'string' ? code : undefined;
    }
    return undefined;
}
function isUnreachableOrRefused(error) {
    if (error instanceof AuthenticationError || error instanceof PermissionDeniedError)
        return true;
    if (error instanceof ApiStatusError)
        return false;
    return error instanceof ApiConnectionError;
}

;// CONCATENATED MODULE: ./src/model/campaign.ts



const CAMPAIGN_KEY = 'gh_campaign';
function isCampaignName(text) {
    return /^[\w.-]{1,64}$/.test(text);
}
function parseRepository(text) {
    const gitlab = /^gitlab:(\w[\w.-]*(?:\/\w[\w.-]*)+)$/.exec(text);
    if (gitlab?.[1])
        return { forge: 'gitlab', project: gitlab[1] };
    const github = /^(?:github:)?(\w[\w-]*\/\w[\w.-]*)$/.exec(text);
    if (github?.[1])
        return { forge: 'github', project: github[1] };
    return undefined;
}
function repositoryName(repository) {
    return repository.forge === 'gitlab' ? `gitlab:${repository.project}` : repository.project;
}
function campaignKey(campaign, repository) {
    return `${campaign}/${repositoryName(repository)}`;
}
function campaignTags(step, campaign, repository) {
    if (!repository)
        return { ...step, [CAMPAIGN_KEY]: campaign };
    const stepOwn = [HANDOFF_KEYS.thread, STEP_KEYS.headSha];
    const kept = Object.entries(step).filter(([key]) => !stepOwn.includes(key));
    return {
        ...Object.fromEntries(kept),
        [CAMPAIGN_KEY]: campaign,
        [FORGE_KEY]: repository.forge,
        [STEP_KEYS.repository]: repository.project,
        [HANDOFF_KEYS.key]: campaignKey(campaign, repository),
    };
}
function applyAgain(prompt, runs) {
    const { latest, opener } = runs;
    if (!latest)
        return { kind: 'start' };
    const meaning = meaningOf(latest.state);
    if (meaning === 'active' || meaning === 'blocked') {
        return { kind: 'skip', runId: latest.run_id, why: `run ${latest.run_id} is still working` };
    }
    if (meaning === 'succeeded' && latest.prompt === prompt) {
        const why = `run ${latest.run_id} succeeded on this instruction`;
        return { kind: 'skip', runId: latest.run_id, why };
    }
    if (!opener || opener.prompt === prompt)
        return { kind: 'start' };
    if (runs.sent === undefined) {
        const why = `could not read whether run ${opener.run_id}, which opened its pull request, has this instruction; apply again to try once more`;
        return { kind: 'skip', runId: opener.run_id, why };
    }
    if (runs.sent && meaningOf(opener.state) === 'succeeded') {
        const why = `run ${opener.run_id} succeeded on this instruction, sent as a follow-up`;
        return { kind: 'skip', runId: opener.run_id, why };
    }
    const why = `the instruction changed: sent to run ${opener.run_id}, which opened its pull request`;
    return { kind: 'follow-up', run: opener, why };
}
function followUpMarker(campaign) {
    return `Campaign ${campaign} changed its instruction to the above.`;
}
function campaignFollowUp(campaign, prompt, change) {
    return `${prompt}\n\n---\n${followUpMarker(campaign)} You made ${change}: keep what you know of this work; change only what this asks.`;
}
function isCampaignFollowUp(text, campaign, prompt) {
    return text.startsWith(`${prompt}\n\n---\n${followUpMarker(campaign)}`);
}

;// CONCATENATED MODULE: ./src/run/continue-pr.ts






const LOOK_LIMIT = 100;
const SAID = 'continue_from: pull_request';
function changePath(home) {
    if (home.project === undefined || home.change === undefined)
        return undefined;
    const project = home.project.toLowerCase();
    switch (home.forge) {
        case 'github':
            return `/${project}/pull/${home.change}`;
        case 'gitlab':
            return `/${project}/-/merge_requests/${home.change}`;
        case undefined:
            return undefined;
    }
}
function namesChange(url, path) {
    if (typeof url !== 'string')
        return false;
    let parsed;
    try {
        parsed = new URL(url);
    }
    catch {
        return false;
    }
    let shown = parsed.pathname.toLowerCase();
    while (shown.endsWith('/'))
        shown = shown.slice(0, -1);
    return shown === path || shown.endsWith(path);
}
function runThatMade(runs, home, path) {
    const made = ownRuns(runs).filter((run) => ofHomeForge(run, home) &&
        run.metadata?.[STEP_KEYS.repository] === home.project &&
        (run.artifacts ?? []).some((artifact) => artifact.artifact_type === 'PULL_REQUEST' &&
            namesChange(artifact.data?.url, path)));
    const time = (run) => Date.parse(run.created_at ?? '') || 0;
    return made.sort((a, b) => time(b) - time(a))[0];
}
async function lookUpRunThatMade(client, home, deadline) {
    const path = changePath(home);
    const scope = homeScope(home, { byThread: false });
    if (!path || !scope)
        return undefined;
    const query = {
        artifact_type: 'PULL_REQUEST',
        limit: LOOK_LIMIT,
        sort_by: 'created_at',
    };
    try {
        const { runs } = await client.listRuns({ ...query, metadata: scope }, { deadline });
        return runThatMade(runs, home, path);
    }
    catch (error) {
        if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available')
            throw error;
        const { runs } = await client.listRuns(query, { deadline });
        return runThatMade(runs, home, path);
    }
}
function continuationMessage(prompt, change, head) {
    const at = head ? `, now at ${head}` : '';
    return `${prompt}\n\n---\nThis comes from CI on ${change}, which you made${at}. Keep what you know of this work; change only what this asks.`;
}
class PullRequestContinuation {
    #source;
    #host;
    #deps;
    constructor(source, host, deps) {
        this.#source = source;
        this.#host = host;
        this.#deps = deps;
    }
    async start(request, deadline) {
        const { home, head } = this.#source;
        const { log } = this.#deps;
        const path = changePath(home);
        const scope = homeScope(home, { byThread: false });
        if (!path || !scope || home.change === undefined) {
            log.info(`${SAID}: this step is not on a pull request; creating a run.`);
            return { kind: 'create', request };
        }
        const change = changeName(home, home.change);
        let made;
        try {
            made = await lookUpRunThatMade(this.#deps.client, home, deadline);
        }
        catch (error) {
            log.info(`${SAID}: could not look for the run that made ${change} (${safeForLog(errorMessage(error))}); creating a run.`);
            return { kind: 'create', request };
        }
        if (!made) {
            log.info(`${SAID}: no run this action started made ${change}; creating a run.`);
            return { kind: 'create', request };
        }
        const message = continuationMessage(request.prompt ?? '', change, head);
        return continueRun(made, { request, message, change, said: SAID }, this.#host, this.#deps, deadline);
    }
}
class KnownRunContinuation {
    #known;
    #host;
    #deps;
    constructor(known, host, deps) {
        this.#known = known;
        this.#host = host;
        this.#deps = deps;
    }
    start(request, deadline) {
        const { run, message, change } = this.#known;
        return continueRun(run, { request, message, change, said: 'campaign' }, this.#host, this.#deps, deadline);
    }
}
async function continueRun(made, what, host, deps, deadline) {
    const { request, message, change, said } = what;
    const { log } = deps;
    const id = safeForLog(made.run_id);
    const refusal = await host.send(made, message, deadline);
    if (refusal === undefined) {
        host.record.runId = made.run_id;
        log.info(`${said}: run ${id} made ${change} (${safeForLog(made.state, 200)}); sent it this step's prompt as a follow-up, and awaiting it as this step's run.`);
        return { kind: 'run', run: made };
    }
    const conversation = made.conversation_id;
    if (refusal instanceof ApiStatusError && refusal.status === 410 && conversation) {
        log.info(`${said}: the session of run ${id}, which made ${change}, is gone (410); continuing its conversation ${safeForLog(conversation)} in a new run.`);
        return { kind: 'create', request: { ...request, conversation_id: conversation } };
    }
    log.info(`${said}: run ${id} made ${change} but refused the follow-up (${safeForLog(errorMessage(refusal))}); creating a run.`);
    return { kind: 'create', request };
}

;// CONCATENATED MODULE: ./src/run/listing.ts


const PAGE_SIZE = 100;
async function listTaggedRuns(client, tags, query, options) {
    const paged = { sort_by: 'created_at', sort_order: 'desc', limit: PAGE_SIZE, ...query };
    try {
        const { runs, complete } = await drain(client.iterateRuns({ ...paged, metadata: { ...tags } }, options));
        return { ...byTree(runs), filteredHere: false, complete };
    }
    catch (error) {
        if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available')
            throw error;
    }
    const { runs, complete } = await drain(client.iterateRuns(paged, options));
    const tagged = runs.filter((run) => carriesTags(run, tags));
    return { ...byTree(tagged), filteredHere: true, complete };
}
function byTree(listed) {
    const runs = [];
    const children = [];
    for (const run of listed)
        (isChildRun(run) ? children : runs).push(run);
    return { runs, children };
}
async function drain(pages) {
    const runs = [];
    for (;;) {
        const next = await pages.next();
        if (next.done)
            return { runs, complete: next.value.complete };
        runs.push(next.value);
    }
}
function carriesTags(run, tags) {
    const metadata = run.metadata;
    if (typeof metadata !== 'object' || metadata === null)
        return false;
    const shown = metadata;
    return Object.entries(tags).every(([key, value]) => shown[key] === value);
}

;// CONCATENATED MODULE: ./src/model/cancel.ts

function logCancel(log, runId, report, label) {
    const described = describeCancel(runId, report);
    const message = label ? `${label}: ${described}` : described;
    logChildrenCancel(log, runId, report.children);
    switch (report.kind) {
        case 'cancelled':
        case 'already-finished':
            return log.info(message);
        case 'blocked':
        case 'refused':
        case 'not-cancellable':
        case 'failed':
            return log.warning(message);
    }
}
function logChildrenCancel(log, runId, children) {
    const { cancelled = [], failed = [] } = children ?? {};
    if (cancelled.length > 0) {
        log.info(`The ${cancelled.length} child run(s) that run ${safeForLog(runId)}'s agent started and were still working were cancelled with it: ${cancelled.map((id) => safeForLog(id)).join(', ')}.`);
    }
    for (const one of failed) {
        log.warning(one.runId === runId
            ? `Could not list the child runs of run ${safeForLog(runId)} to cancel them; any its agent started may still be running and billing. Cancel them by hand. (${safeForLog(one.message)})`
            : `Could not cancel child run ${safeForLog(one.runId)} of run ${safeForLog(runId)}; it may still be running and billing. Cancel it by hand. (${safeForLog(one.message)})`);
    }
}
function describeCancel(unsafeRunId, report) {
    const runId = safeForLog(unsafeRunId);
    switch (report.kind) {
        case 'cancelled':
            return `Run ${runId} was cancelled.`;
        case 'already-finished':
            return `Run ${runId} had already finished; nothing to cancel.`;
        case 'blocked':
            return `Run ${runId} cannot be cancelled while it waits for a person; it stays BLOCKED. A person must answer it in its session; cancel it there afterwards if it is no longer wanted.`;
        case 'refused':
            return `The service refused to cancel run ${runId}: it has ended, or it waits for a person (BLOCKED) and stays so. Check it by hand.`;
        case 'not-cancellable':
            return `Run ${runId} cannot be cancelled: this kind of run is not cancellable, so it runs to its end (${safeForLog(report.message)}).`;
        case 'failed':
            return `Could not cancel run ${runId}; it may still be running and billing. Cancel it by hand. (${safeForLog(report.message)})`;
    }
}

;// CONCATENATED MODULE: ./src/run/cancel.ts










async function requestCancel(client, runId, options = {}) {
    const report = await cancelOne(client, runId, options);
    if (report.kind === 'failed' || report.kind === 'blocked' || report.kind === 'refused') {
        return report;
    }
    const children = await cancelChildren(client, runId, options);
    return children.cancelled.length + children.failed.length > 0 ? { ...report, children } : report;
}
async function cancelOne(client, runId, options) {
    try {
        return await client.cancelRun(runId, options);
    }
    catch (error) {
        const message = errorMessage(error);
        if (error instanceof UnprocessableEntityError)
            return { kind: 'not-cancellable', message };
        return { kind: 'failed', message };
    }
}
const WORKING_CHILD_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS'];
const CHILD_PAGES = 5;
async function cancelChildren(client, rootId, options) {
    const listed = [];
    try {
        const pages = client.iterateRuns({ ancestor_run_id: rootId, state: WORKING_CHILD_STATES, limit: 100 }, { ...options, maxPages: CHILD_PAGES });
        for await (const run of pages)
            listed.push(run);
    }
    catch (error) {
        return { cancelled: [], failed: [{ runId: rootId, message: errorMessage(error) }] };
    }
    const working = childrenOf(listed, rootId).filter((run) => meaningOf(run.state) === 'active');
    const reports = await Promise.all(working.map(async (run) => ({
        runId: run.run_id,
        report: await cancelOne(client, run.run_id, options),
    })));
    return {
        cancelled: reports
            .filter(({ report }) => report.kind === 'cancelled')
            .map(({ runId }) => runId),
        failed: reports.flatMap(({ runId, report }) => report.kind === 'failed' || report.kind === 'not-cancellable'
            ? [{ runId, message: report.message }]
            : []),
    };
}
function cancelDeadline(why, now) {
    if (why.kind === 'signal') {
        const { afterTerminateMs, afterInterruptMs } = timing/* SIGNAL_CANCEL */.EJ;
        return now + (why.signal === 'SIGTERM' ? afterTerminateMs : afterInterruptMs);
    }
    if (why.kind === 'post')
        return now + timing/* POST_CANCEL_DEADLINE_MS */.uY;
    return now + timing/* CANCEL_AFTER_TIMEOUT */.UE.budgetMs;
}
async function cancelRun(order, deps) {
    const remaining = () => Math.max(0, order.deadline - deps.now());
    const once = () => {
        const ms = Math.max(timing/* MIN_CANCEL_REQUEST_MS */.jN, remaining());
        const timeoutMs = order.why.kind === 'post' ? ms : Math.min(ms, timing/* CANCEL_AFTER_TIMEOUT */.UE.timeoutMs);
        return requestCancel(deps.client, order.runId, {
            timeoutMs: order.why.kind === 'signal' ? remaining() : timeoutMs,
            deadline: order.deadline,
            ...(order.why.kind === 'signal' ? { signal: AbortSignal.timeout(remaining()) } : {}),
        });
    };
    let report = await once();
    let noted = false;
    while (report.kind === 'already-finished' &&
        order.mayRestart?.() &&
        remaining() > timing/* RECANCEL_PAUSE_MS */.qU * 2) {
        if (!noted && deps.log) {
            deps.log.info(`Run ${order.runId} still shows its state from before the follow-up; cancelling again once it restarts.`);
            noted = true;
        }
        await deps.sleep(order.why.kind === 'post' ? timing/* CREATE_LOOKUP */.qS.postPauseMs : timing/* RECANCEL_PAUSE_MS */.qU);
        report = await once();
    }
    return report;
}
async function cancelOwnRun(tracker, runId, why, deps, deadline = cancelDeadline(why, deps.now())) {
    const report = await cancelRun({ runId, why, deadline, mayRestart: () => tracker.awaitingNewPass }, deps);
    if (isFinalCancel(report, tracker))
        tracker.settle();
    return report;
}
async function cancelAfterError(tracker, deps) {
    const runId = tracker.runId;
    if (!runId)
        return tracker.mayHaveUnseenRun ? undefined : tracker.settle();
    if (!tracker.needsCancel)
        return;
    logCancel(deps.log, runId, await cancelOwnRun(tracker, runId, { kind: 'error' }, deps));
}
function isFinalCancel(report, tracker) {
    if (report.kind === 'failed' || report.kind === 'blocked' || tracker.deciding)
        return false;
    return !(report.kind === 'already-finished' && tracker.awaitingNewPass);
}
const SUPERSEDED_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS'];
async function cancelPreviousRuns(client, asked, log, options = {}) {
    const { name, home, input } = asked;
    const scope = homeScope(home);
    const where = scope ? ` of ${describeHome(home)}` : '';
    if (!scope) {
        log.info(`${input}: no project is named, so no run can be told to be this one's; none is cancelled.`);
        return [];
    }
    const { runs } = await listTaggedRuns(client, scope, { name, state: SUPERSEDED_STATES }, { ...options, maxPages: PREVIOUS_RUNS_MAX_PAGES });
    const active = runs.filter((run) => run.agent_config?.name === name &&
        meaningOf(run.state) === 'active' &&
        ofHomeForge(run, home));
    const cancelled = [];
    for (const run of active) {
        const report = await requestCancel(client, run.run_id, options);
        if (report.kind === 'cancelled')
            cancelled.push(run.run_id);
        logCancel(log, run.run_id, report, input);
    }
    if (active.length === 0)
        log.info(`${input}: no active run is named ${name}${where}.`);
    return cancelled;
}
async function cancelCampaign(client, campaign, log, options = {}) {
    const { runs } = await listTaggedRuns(client, { [CAMPAIGN_KEY]: campaign }, { state: SUPERSEDED_STATES }, { ...options, maxPages: CAMPAIGN_MAX_PAGES });
    const working = runs.filter((run) => run.metadata?.[CAMPAIGN_KEY] === campaign && meaningOf(run.state) === 'active');
    const cancelled = [];
    for (const run of working) {
        const report = await requestCancel(client, run.run_id, options);
        if (report.kind === 'cancelled')
            cancelled.push(run.run_id);
        logCancel(log, run.run_id, report, 'cancel_only');
    }
    log.info(`cancel_only: cancelled ${cancelled.length} working run(s) of campaign ${campaign}.`);
    return cancelled;
}
const CAMPAIGN_MAX_PAGES = 20;
const PREVIOUS_RUNS_MAX_PAGES = 10;
async function cancelOnly(client, asked, log) {
    const cancelled = await cancelPreviousRuns(client, { ...asked, input: 'cancel_only' }, log);
    log.info(`cancel_only: cancelled ${cancelled.length} active run(s) named ${asked.name}.`);
    return cancelled;
}
async function cancelRunThatMade(client, home, log, deadline) {
    const said = 'cancel_only with continue_from: pull_request';
    let made;
    try {
        made = await lookUpRunThatMade(client, home, deadline);
    }
    catch (error) {
        log.warning(`${said}: could not look for the run that made ${describeHome(home)} (${errorMessage(error)}).`);
        return undefined;
    }
    if (!made) {
        log.info(`${said}: no run this action started made ${describeHome(home)}.`);
        return undefined;
    }
    if (meaningOf(made.state) !== 'active') {
        log.info(`${said}: run ${made.run_id}, which made ${describeHome(home)}, is ${made.state}; nothing to cancel.`);
        return undefined;
    }
    const report = await requestCancel(client, made.run_id, { deadline });
    logCancel(log, made.run_id, report, 'cancel_only');
    return report.kind === 'cancelled' ? made.run_id : undefined;
}

;// CONCATENATED MODULE: ./src/api/answers.ts

const MAX_PROMPT_BYTES = 1024 * 1024;
const MAX_ANSWER_BYTES = 6 * MAX_PROMPT_BYTES + 4 * 1024 * 1024;
const RUN_ID = /^[\w.-]{1,200}$/;
function isRunId(value) {
    return typeof value === 'string' && RUN_ID.test(value) && !/^\.+$/.test(value);
}
function readRunItem(data, expectedRunId) {
    if (!isObject(data))
        return { problem: `a body that is not a run (${kindOf(data)})` };
    const runId = data['run_id'];
    if (!isRunId(runId))
        return { problem: 'a run whose run_id is not a run ID' };
    if (expectedRunId !== undefined && runId !== expectedRunId) {
        return { problem: `the answer for another run (${runId})` };
    }
    const state = data['state'];
    if (typeof state !== 'string' || state.trim() === '') {
        return { problem: `a run whose state is not a string (${kindOf(state)})` };
    }
    return { run: normaliseRun({ ...data, run_id: runId, state }) };
}
function readCreatedRun(data) {
    const answer = isObject(data) ? data : {};
    const { run_id: runId, task_id: taskId, state, at_capacity: atCapacity } = answer;
    if (!isRunId(runId))
        return { problem: 'an answer without a usable run_id' };
    return {
        run: {
            run_id: runId,
            ...(typeof taskId === 'string' ? { task_id: taskId } : {}),
            state: typeof state === 'string' && state.trim() !== '' ? state : 'UNKNOWN',
            ...(atCapacity === true ? { at_capacity: true } : {}),
        },
    };
}
const TEXT_FIELDS = [
    'title',
    'prompt',
    'created_at',
    'updated_at',
    'started_at',
    'session_id',
    'session_link',
    'source',
    'run_time',
];
function normaliseRun(data) {
    const run = { ...data };
    for (const field of TEXT_FIELDS)
        setOrDrop(run, field, textOf(data[field]));
    setOrDrop(run, 'status_message', statusMessageOf(data['status_message']));
    setOrDrop(run, 'agent_config', isObject(data['agent_config']) ? textValues(data['agent_config']) : undefined);
    setOrDrop(run, 'creator', isObject(data['creator']) ? textValues(data['creator']) : undefined);
    setOrDrop(run, 'request_usage', isObject(data['request_usage']) ? data['request_usage'] : undefined);
    setOrDrop(run, 'artifacts', Array.isArray(data['artifacts']) ? artifactsOf(data['artifacts']) : undefined);
    const cancellable = data['is_run_type_cancellable'];
    setOrDrop(run, 'is_run_type_cancellable', typeof cancellable === 'boolean' ? cancellable : undefined);
    return run;
}
function statusMessageOf(value) {
    if (typeof value === 'string')
        return value.trim() ? { message: value } : undefined;
    if (!isObject(value))
        return undefined;
    const message = {};
    const text = textOf(value['message']);
    if (text !== undefined)
        message.message = text;
    const code = textOf(value['error_code']);
    if (code !== undefined)
        message.error_code = code;
    if (typeof value['retryable'] === 'boolean')
        message.retryable = value['retryable'];
    return { ...value, ...message, message: message.message };
}
function artifactsOf(values) {
    return values.filter((artifact) => isObject(artifact) &&
        typeof artifact['artifact_type'] === 'string' &&
        (artifact['data'] === undefined || isObject(artifact['data'])));
}
function readFollowupAnswer(data) {
    const answer = isObject(data) ? data : {};
    const { followup_id: followupId, outcome } = answer;
    return {
        ...(typeof followupId === 'string' || followupId === null ? { followupId } : {}),
        ...(typeof outcome === 'string' && outcome.trim() !== '' ? { outcome } : {}),
    };
}
function textValues(record) {
    const out = {};
    for (const [key, value] of Object.entries(record)) {
        out[key] = isObject(value) || Array.isArray(value) ? value : textOf(value);
    }
    return out;
}
function textOf(value) {
    if (typeof value === 'string')
        return value;
    if (typeof value === 'number' || typeof value === 'boolean')
        return String(value);
    return undefined;
}
function setOrDrop(record, key, value) {
    if (value === undefined)
        Reflect.deleteProperty(record, key);
    else
        record[key] = value;
}
function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function kindOf(value) {
    if (value === null)
        return 'null';
    if (value === undefined)
        return 'an empty body';
    if (Array.isArray(value))
        return 'an array';
    return typeof value === 'string'
        ? `the string ${JSON.stringify(cut(value, 40))}`
        : `a ${typeof value}`;
}

// EXTERNAL MODULE: ./node_modules/@actions/http-client/lib/index.js + 1 modules
var lib = __nccwpck_require__(4942);
;// CONCATENATED MODULE: ./src/api/retry.ts


const DEFAULT_BACKOFF = {
    initialDelayMs: timing/* REQUEST_RETRIES */.NP.initialDelayMs,
    maxDelayMs: timing/* REQUEST_RETRIES */.NP.maxDelayMs,
    maxHintMs: timing/* REQUEST_RETRIES */.NP.maxHintMs,
};
function isRetryable(error, mode) {
    if (!(error instanceof AgentApiError))
        return false;
    const hint = shouldRetryHeader(error);
    if (hint === false)
        return false;
    if (hint === true && mode === 'idempotent')
        return true;
    if (error instanceof ApiStatusError) {
        const { status } = error;
        if (isRefusal(error))
            return true;
        if (mode === 'at-most-once')
            return false;
        return status === 408 || status === 409 || status >= 500;
    }
    if (error instanceof ApiTlsError)
        return false;
    if (error instanceof ApiTimeoutError)
        return mode === 'idempotent';
    if (error instanceof ApiConnectionError)
        return mode === 'idempotent' || !error.requestSent;
    if (error instanceof ApiResponseFormatError)
        return mode === 'idempotent';
    return false;
}
function isRefusal(error) {
    if (!(error instanceof ApiStatusError))
        return false;
    return error.status === 429 || (error.status === 503 && retryAfterMs(error.headers) !== undefined);
}
function mayHaveActed(error) {
    if (error instanceof ApiStatusError) {
        return error.status >= 500 && !isRefusal(error);
    }
    if (error instanceof ApiConnectionError)
        return error.requestSent;
    if (error instanceof ApiResponseFormatError)
        return error.status >= 200 && error.status < 300;
    return error instanceof AgentApiError;
}
function retryDelayMs(error, attempt, random, now, policy = DEFAULT_BACKOFF) {
    const hinted = error instanceof ApiStatusError ? retryAfterMs(error.headers, now) : undefined;
    if (hinted !== undefined)
        return Math.round(Math.min(hinted, policy.maxHintMs) * (1 + 0.25 * random()));
    const exponential = Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
    return Math.round(exponential * (1 - 0.25 * random()));
}
function retryAfterMs(headers, now = Date.now()) {
    const milliseconds = single(headers['retry-after-ms'])?.trim();
    if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds))
        return Math.round(Number(milliseconds));
    const retryAfter = single(headers['retry-after'])?.trim();
    if (!retryAfter)
        return undefined;
    if (/^\d+(\.\d+)?$/.test(retryAfter))
        return Math.round(Number(retryAfter) * 1000);
    if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(retryAfter)) {
        return undefined;
    }
    const date = Date.parse(retryAfter);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
function shouldRetryHeader(error) {
    if (!(error instanceof ApiStatusError))
        return undefined;
    const value = single(error.headers['x-should-retry'])?.trim().toLowerCase();
    if (value === 'true')
        return true;
    if (value === 'false')
        return false;
    return undefined;
}
function single(value) {
    return Array.isArray(value) ? value[0] : value;
}

;// CONCATENATED MODULE: ./src/api/download-url.ts
function parseDownloadUrl(url, serviceIsLoopback) {
    let target;
    try {
        target = new URL(url);
    }
    catch {
        throw new Error('The download URL the service gave does not parse');
    }
    const local = isLoopback(target.hostname);
    if (local && !serviceIsLoopback) {
        throw new Error(`Refusing to download from ${target.protocol}//${target.host}: it is this machine, and base_url is not`);
    }
    if (target.protocol === 'https:' || (target.protocol === 'http:' && local))
        return target;
    throw new Error(`Refusing to download from ${target.protocol}//${target.host}: only https is allowed`);
}
function isLoopback(hostname) {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    if (host === 'localhost' || host.endsWith('.localhost'))
        return true;
    if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === '0.0.0.0')
        return true;
    if (host === '[::1]' || host === '[::]')
        return true;
    return /^\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\]$/.test(host);
}

;// CONCATENATED MODULE: ./src/api/slots.ts
class RequestSlots {
    #limit;
    #taken = 0;
    #waiting = new Set();
    constructor(limit) {
        this.#limit = limit;
    }
    tryTake() {
        if (this.#taken >= this.#limit)
            return undefined;
        this.#taken += 1;
        return this.#release();
    }
    async take(stop) {
        const free = this.tryTake();
        if (free)
            return free;
        let handed = false;
        let onTurn = () => { };
        const turn = new Promise((resolve) => (onTurn = resolve));
        const entry = () => {
            handed = true;
            onTurn();
        };
        this.#waiting.add(entry);
        try {
            await (stop === undefined ? turn : Promise.race([turn, stop]));
        }
        catch (error) {
            if (handed)
                this.#release()();
            else
                this.#waiting.delete(entry);
            throw error;
        }
        return this.#release();
    }
    #release() {
        let released = false;
        return () => {
            if (released)
                return;
            released = true;
            const next = this.#waiting.values().next();
            if (next.done === true) {
                this.#taken -= 1;
                return;
            }
            this.#waiting.delete(next.value);
            next.value();
        };
    }
}
async function takeSlot(slots, wait) {
    const free = slots.tryTake();
    if (free)
        return free;
    const { signal, deadline } = wait;
    const done = new AbortController();
    const stops = [];
    if (signal !== undefined) {
        stops.push(new Promise((_, reject) => {
            const stop = () => reject(wait.aborted());
            if (signal.aborted)
                stop();
            else
                signal.addEventListener('abort', stop, { once: true, signal: done.signal });
        }));
    }
    if (deadline !== undefined) {
        const slept = wait.sleep(Math.max(0, deadline - wait.now()), done.signal);
        stops.push(slept.then(() => {
            throw wait.timedOut();
        }, () => new Promise(() => { })));
    }
    const stop = stops.length === 0 ? undefined : Promise.race(stops);
    stop?.catch(() => { });
    try {
        return await slots.take(stop);
    }
    finally {
        done.abort();
    }
}

;// CONCATENATED MODULE: ./src/api/transport.ts









const DOWNLOAD_DEFAULTS = { maxBytes: 25 * 1024 * 1024, timeoutMs: timing/* DOWNLOAD_ATTEMPT_MS */.Yl };
const MIN_REDACTED_KEY_LENGTH = 8;
const DEFAULTS = {
    maxInFlight: 16,
    timeoutMs: timing/* REQUEST_RETRIES */.NP.attemptMs,
    maxRetries: timing/* REQUEST_RETRIES */.NP.maxRetries,
    maxBodyBytes: MAX_ANSWER_BYTES,
};
class Transport {
    #baseUrl;
    #apiKey;
    #origin;
    #serviceIsLoopback;
    #slots;
    #options;
    constructor(options) {
        this.#baseUrl = options.baseUrl.replace(/\/$/, '');
        this.#origin = new URL(this.#baseUrl).origin;
        this.#serviceIsLoopback = isLoopback(new URL(this.#baseUrl).hostname);
        this.#apiKey = options.apiKey;
        this.#slots = new RequestSlots(options.maxInFlight ?? DEFAULTS.maxInFlight);
        this.#options = {
            userAgent: options.userAgent ?? 'cloud-agent-run-action',
            timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
            maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
            maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
            sleep: options.sleep ?? abortableSleep,
            random: options.random ?? Math.random,
            now: options.now ?? Date.now,
            onRetry: options.onRetry,
        };
    }
    async request(method, path, options = {}) {
        const label = { method, path };
        const retryMode = options.retryMode ?? (method === 'GET' ? 'idempotent' : 'at-most-once');
        const maxRetries = options.maxRetries ?? this.#options.maxRetries;
        const maxRefusals = maxRetries === 0 ? 0 : Math.max(maxRetries, timing/* REQUEST_RETRIES */.NP.refusalRetries);
        const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
        const { deadline } = options;
        let failures = 0;
        let refusals = 0;
        for (let number = 1;; number += 1) {
            const left = deadline === undefined ? Infinity : deadline - this.#options.now();
            if (left <= 0)
                throw new ApiTimeoutError(label, 0, 'the caller stopped waiting');
            try {
                const release = options.urgent === true ? () => { } : await this.#slot(label, options);
                try {
                    const attemptLeft = deadline === undefined ? Infinity : deadline - this.#options.now();
                    return await this.#send(label, {
                        ...options,
                        timeoutMs: Math.max(1, Math.min(timeoutMs, attemptLeft)),
                    });
                }
                finally {
                    release();
                }
            }
            catch (error) {
                const refused = isRefusal(error);
                const used = refused ? ++refusals : ++failures;
                const allowed = refused ? maxRefusals : maxRetries;
                if (used > allowed || !isRetryable(error, retryMode) || options.signal?.aborted) {
                    throw error;
                }
                const delay = retryDelayMs(error, number, this.#options.random, this.#options.now());
                if (deadline !== undefined && this.#options.now() + delay >= deadline)
                    throw error;
                this.#options.onRetry?.(`${asSentence(safeForLog(errorMessage(error)))} Retry ${used} of ${allowed} in ${(delay / 1000).toFixed(1)}s.`);
                await this.#options.sleep(delay, options.signal).catch(() => {
                    throw new ApiAbortedError(label);
                });
            }
        }
    }
    async download(url, options = {}) {
        const target = parseDownloadUrl(url, this.#serviceIsLoopback);
        const label = { method: 'GET', path: `${target.origin}${target.pathname}` };
        const maxBytes = options.maxBytes ?? DOWNLOAD_DEFAULTS.maxBytes;
        const timeoutMs = options.timeoutMs ?? DOWNLOAD_DEFAULTS.timeoutMs;
        const release = await this.#slot(label, { signal: options.signal });
        const http = this.#http(timeoutMs);
        const raw = await transport_withDeadline(label, timeoutMs, options.signal, async (track) => {
            const response = await http.request('GET', target.toString(), null, {});
            track(response.message);
            const status = response.message.statusCode ?? 0;
            if (status < 200 || status >= 300) {
                response.message.destroy();
                throw new DownloadError(label, status);
            }
            return {
                message: response.message,
                body: await readCapped(response.message, maxBytes, label),
            };
        }, () => http.dispose()).finally(release);
        return { contentType: raw.message.headers['content-type'], body: raw.body };
    }
    #slot(label, { signal, deadline }) {
        return takeSlot(this.#slots, {
            signal,
            deadline,
            now: this.#options.now,
            sleep: this.#options.sleep,
            aborted: () => new ApiAbortedError(label),
            timedOut: () => new ApiTimeoutError(label, 0, 'the caller stopped waiting'),
        });
    }
    async #send(label, options) {
        const url = this.#url(label.path, options.query);
        const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
        const headers = {
            authorization: `Bearer ${this.#apiKey}`,
            accept: 'application/json',
        };
        const body = options.body === undefined ? null : JSON.stringify(options.body);
        if (body !== null)
            headers['content-type'] = 'application/json';
        const http = this.#http(timeoutMs);
        const raw = await transport_withDeadline(label, timeoutMs, options.signal, async (track) => {
            const response = await http.request(label.method, url, body, headers);
            track(response.message);
            const bytes = await readCapped(response.message, this.#options.maxBodyBytes, label);
            return { message: response.message, text: bytes.toString('utf8') };
        }, () => http.dispose());
        const status = raw.message.statusCode ?? 0;
        const responseHeaders = raw.message.headers;
        const isError = status < 200 || status >= 300;
        if (isError || this.#apiKey.length >= MIN_REDACTED_KEY_LENGTH) {
            raw.text = redactSecret(raw.text, this.#apiKey);
        }
        if (status >= 300 && status < 400) {
            throw new ApiResponseFormatError(label, status, `a redirect to ${redirectTarget(responseHeaders.location, url)}, which is not followed so the key stays with base_url`);
        }
        if (isError)
            throw errorForStatus(label, status, responseHeaders, raw.text);
        const data = parseJson(raw.text, label, status);
        if (!options.read)
            return { headers: responseHeaders, data: data };
        const read = options.read(data);
        if ('problem' in read)
            throw new ApiResponseFormatError(label, status, read.problem);
        return { headers: responseHeaders, data: read.value };
    }
    #http(timeoutMs) {
        return new lib/* HttpClient */.Qq(this.#options.userAgent, [], {
            allowRedirects: false,
            allowRetries: false,
            keepAlive: false,
            socketTimeout: timeoutMs,
        });
    }
    #url(path, query) {
        const url = new URL(this.#baseUrl + path);
        if (url.origin !== this.#origin)
            throw new Error(`Refusing to send the key to ${url.origin}`);
        for (const [key, value] of Object.entries(query ?? {})) {
            if (value === undefined)
                continue;
            if (Array.isArray(value))
                for (const item of value)
                    url.searchParams.append(key, item);
            else
                url.searchParams.set(key, String(value));
        }
        return url.toString();
    }
}
function parseJson(text, label, status) {
    if (text.trim() === '')
        return undefined;
    try {
        return JSON.parse(text);
    }
    catch {
        throw new ApiResponseFormatError(label, status, `a body that is not JSON ("${excerpt(text, 60)}")`);
    }
}
async function transport_withDeadline(label, timeoutMs, signal, work, onGiveUp) {
    if (signal?.aborted)
        throw new ApiAbortedError(label);
    let message;
    const giveUp = () => {
        message?.destroy();
        onGiveUp();
    };
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            giveUp();
            reject(new ApiTimeoutError(label, timeoutMs));
        }, clampTimerMs(timeoutMs));
        const onAbort = () => {
            giveUp();
            reject(new ApiAbortedError(label));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        work((m) => (message = m))
            .then(resolve, (error) => reject(toConnectionError(label, error)))
            .finally(() => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
        });
    });
}
const NOT_SENT_CODES = new Set([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
]);
const CERTIFICATE_CODES = new Set([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'CERT_HAS_EXPIRED',
    'CERT_NOT_YET_VALID',
    'CERT_UNTRUSTED',
    'CERT_REVOKED',
    'CERT_SIGNATURE_FAILURE',
    'ERR_TLS_CERT_ALTNAME_INVALID',
]);
function toConnectionError(label, error) {
    if (error instanceof AgentApiError)
        return error;
    const code = error?.code;
    if (typeof code === 'string' && CERTIFICATE_CODES.has(code))
        return new ApiTlsError(label, error);
    if (error instanceof Error && /^Request timeout/.test(error.message)) {
        return new ApiConnectionError(label, new Error('the connection went idle'), true);
    }
    return new ApiConnectionError(label, error, !(typeof code === 'string' && NOT_SENT_CODES.has(code)));
}
async function readCapped(message, maxBytes, label) {
    const status = message.statusCode ?? 0;
    const declared = Number(message.headers['content-length']);
    const tooLarge = () => new ApiResponseFormatError(label, status, `a body larger than ${maxBytes} bytes, which was not read`);
    if (Number.isFinite(declared) && declared > maxBytes) {
        message.destroy();
        throw tooLarge();
    }
    const chunks = [];
    let size = 0;
    for await (const chunk of message) {
        const buffer = chunk;
        size += buffer.length;
        if (size > maxBytes) {
            message.destroy();
            throw tooLarge();
        }
        chunks.push(buffer);
    }
    return Buffer.concat(chunks);
}
function redirectTarget(location, from) {
    if (!location)
        return 'an unnamed location';
    try {
        return new URL(location, from).origin;
    }
    catch {
        return 'an unparseable location';
    }
}
function abortAfter(signal, ms) {
    const controller = new AbortController();
    if (signal.aborted) {
        controller.abort(signal.reason);
        return controller.signal;
    }
    const onAbort = () => {
        clearTimeout(timer);
        controller.abort(signal.reason);
    };
    const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        controller.abort(new DOMException(`The deadline of ${ms} ms passed`, 'TimeoutError'));
    }, clampTimerMs(ms));
    timer.unref();
    signal.addEventListener('abort', onAbort, { once: true });
    return controller.signal;
}
function abortableSleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal?.reason);
        };
        const timer = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, clampTimerMs(ms));
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
function clampTimerMs(ms) {
    if (Number.isNaN(ms))
        return 0;
    return Math.min(Math.max(0, ms), timing/* MAX_TIMER_MS */._o);
}

;// CONCATENATED MODULE: ./src/api/client.ts




class AgentRunsClient {
    #transport;
    constructor(options) {
        this.#transport = new Transport(options);
    }
    async createRun(body, options = {}) {
        const send = async (path) => (await this.#transport.request('POST', path, {
            ...options,
            body,
            retryMode: 'at-most-once',
            read: (data) => {
                const answer = readCreatedRun(data);
                return 'run' in answer ? { value: answer.run } : answer;
            },
        })).data;
        try {
            return await send('/agent/run');
        }
        catch (error) {
            if (error instanceof NotFoundError || error instanceof MethodNotAllowedError) {
                return await send('/agent/runs');
            }
            throw error;
        }
    }
    async getRun(runId, options = {}) {
        const read = (data) => {
            const answer = readRunItem(data, runId);
            return 'run' in answer ? { value: answer.run } : answer;
        };
        return (await this.#transport.request('GET', runPath(runId), { ...options, read })).data;
    }
    async listRuns(query = {}, options = {}) {
        const { metadata, ...plain } = query;
        const flatQuery = { ...plain };
        for (const [key, value] of Object.entries(metadata ?? {}))
            flatQuery[`metadata[${key}]`] = value;
        const { data, headers } = await this.#transport.request('GET', '/agent/runs', { ...options, query: flatQuery });
        const servedAt = Date.parse(headers.date ?? '');
        const runs = Array.isArray(data?.runs) ? data.runs : [];
        return {
            ...data,
            runs: runs.flatMap((entry) => {
                const read = readRunItem(entry);
                return 'run' in read ? [read.run] : [];
            }),
            ...(Number.isNaN(servedAt) ? {} : { servedAt }),
        };
    }
    async *iterateRuns(query = {}, options = {}) {
        let cursor = query.cursor;
        const seen = new Set(cursor === undefined ? [] : [cursor]);
        for (let page = 0; page < (options.maxPages ?? 50); page += 1) {
            const { runs, page_info } = await this.listRuns({ ...query, cursor }, options);
            yield* runs;
            if (!page_info?.has_next_page)
                return { complete: true };
            const next = page_info.next_cursor;
            if (!next || seen.has(next))
                return { complete: false };
            seen.add(next);
            cursor = next;
        }
        return { complete: false };
    }
    async sendFollowup(runId, message, options = {}) {
        const body = { message };
        const { data } = await this.#transport.request('POST', `${runPath(runId)}/followups`, {
            ...options,
            body,
            retryMode: 'at-most-once',
        });
        return readFollowupAnswer(data);
    }
    async interruptRun(runId, options = {}) {
        await this.#transport.request('POST', `${runPath(runId)}/interrupt`, {
            ...options,
            retryMode: 'idempotent',
        });
    }
    async cancelRun(runId, options = {}) {
        try {
            await this.#transport.request('POST', `${runPath(runId)}/cancel`, {
                ...options,
                retryMode: 'idempotent',
                urgent: true,
            });
            return { kind: 'cancelled' };
        }
        catch (error) {
            if (!(error instanceof BadRequestError))
                throw error;
        }
        try {
            const run = await this.getRun(runId, { signal: options.signal, maxRetries: 1 });
            return { kind: run.state === 'BLOCKED' ? 'blocked' : 'already-finished' };
        }
        catch {
            return { kind: 'refused' };
        }
    }
    async getConversation(runId, options = {}) {
        const { data } = await this.#transport.request('GET', `${runPath(runId)}/conversation`, options);
        return { ...data, steps: Array.isArray(data?.steps) ? data.steps : [] };
    }
    async getArtifact(artifactUid, options = {}) {
        if (artifactUid.trim() === '')
            throw new Error('An artifact UID is required');
        const path = `/agent/artifacts/${encodeURIComponent(artifactUid)}`;
        return (await this.#transport.request('GET', path, options)).data;
    }
    async downloadSignedUrl(url, options = {}) {
        return await this.#transport.download(url, options);
    }
}
function runPath(runId) {
    if (!isRunId(runId))
        throw new Error(`${JSON.stringify(safeForLog(runId, 100))} is not a run ID`);
    return `/agent/runs/${encodeURIComponent(runId)}`;
}

;// CONCATENATED MODULE: ./src/version.ts
const USER_AGENT = 'cloud-agent-run-action/1';

;// CONCATENATED MODULE: ./src/service.ts


function serviceClient(connection, log, options = {}) {
    return new AgentRunsClient({
        baseUrl: connection.baseUrl,
        apiKey: connection.apiKey,
        userAgent: USER_AGENT,
        ...options,
        onRetry: (message) => log.info(message),
    });
}

;// CONCATENATED MODULE: ./src/step/cancel-only.ts





const CANCEL_DEADLINE_MS = 60_000;
async function cancelOnlyStep(cleanup, world, io) {
    const home = homeOf(world, githubThread(new GitHubContext('', world)));
    const client = serviceClient(cleanup, io);
    const cancelled = cleanup.name ? await cancelOnly(client, { name: cleanup.name, home }, io) : [];
    if (cleanup.madeThePullRequest) {
        const made = await cancelRunThatMade(client, home, io, Date.now() + CANCEL_DEADLINE_MS);
        if (made && !cancelled.includes(made))
            cancelled.push(made);
    }
    if (cleanup.campaign) {
        const deadline = Date.now() + CANCEL_DEADLINE_MS;
        for (const runId of await cancelCampaign(client, cleanup.campaign, io, { deadline })) {
            if (!cancelled.includes(runId))
                cancelled.push(runId);
        }
    }
    io.setOutput('cancelled', JSON.stringify(cancelled));
}

;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
;// CONCATENATED MODULE: ./src/agent/artifacts.ts

function parseArtifacts(artifacts) {
    if (!Array.isArray(artifacts))
        return [];
    return artifacts.filter(isRecord).map((artifact) => {
        const data = isRecord(artifact.data) ? artifact.data : {};
        const type = typeof artifact.artifact_type === 'string' ? artifact.artifact_type : 'UNKNOWN';
        const name = type === 'FILE'
            ? (artifacts_text(data.filename) ?? baseName(artifacts_text(data.filepath)))
            : type === 'PULL_REQUEST'
                ? artifacts_text(data.branch)
                : (artifacts_text(data.title) ?? artifacts_text(data.filename) ?? artifacts_text(data.description));
        return dropUndefined({
            type,
            name,
            url: httpUrl(data.url),
            artifactUid: artifacts_text(data.artifact_uid),
            filepath: type === 'FILE' ? artifacts_text(data.filepath) : undefined,
            sizeBytes: typeof data.size_bytes === 'number' && Number.isFinite(data.size_bytes)
                ? data.size_bytes
                : undefined,
        });
    });
}
function artifactsOutput(artifacts, downloadedTo = new Map()) {
    return artifacts.map((artifact) => dropUndefined({
        type: artifact.type,
        name: artifact.name,
        url: artifact.url,
        path: downloadedTo.get(artifact),
    }));
}
function parseArtifactPatterns(value) {
    const patterns = value
        .split(/[\n,]/)
        .map((pattern) => pattern.trim())
        .filter((pattern) => pattern !== '');
    for (const pattern of patterns) {
        if (/[\u0000-\u001f]/.test(pattern)) {
            throw new Error(`has a control character in the pattern "${JSON.stringify(pattern)}".`);
        }
        if (pattern.startsWith('!')) {
            throw new Error(`cannot exclude with "!" ("${pattern}"); list the files to download.`);
        }
    }
    return patterns;
}
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)(\..*)?$/i;
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f<>:"|?*]/;
function safeArtifactPath(dir, filepath) {
    const refuse = (reason) => ({ ok: false, reason });
    if (filepath === '')
        return refuse('the service gave no file name');
    if (filepath.includes('\0'))
        return refuse('the name holds a NUL character');
    const unified = filepath.replace(/\\/g, '/');
    if (unified.startsWith('/'))
        return refuse('it is an absolute path');
    if (/^[a-zA-Z]:/.test(unified))
        return refuse('it starts with a drive letter');
    const parts = unified.split('/').filter((part) => part !== '' && part !== '.');
    if (parts.length === 0)
        return refuse('it names no file');
    for (const part of parts) {
        if (part === '..')
            return refuse('it climbs out of the directory with ".."');
        if (part.toLowerCase() === '.git')
            return refuse('it would write into .git');
        if (FORBIDDEN_CHARACTERS.test(part)) {
            return refuse(`"${printable(part)}" holds a character Windows forbids in file names`);
        }
        if (WINDOWS_RESERVED.test(part))
            return refuse(`"${part}" is a name Windows reserves`);
        if (/[. ]$/.test(part))
            return refuse(`"${part}" ends in a dot or a space`);
    }
    const root = (0,external_node_path_namespaceObject.resolve)(dir);
    const path = (0,external_node_path_namespaceObject.resolve)(root, ...parts);
    if (!path.startsWith(root + external_node_path_namespaceObject.sep))
        return refuse('it would land outside the directory');
    return { ok: true, path };
}
function defaultArtifactsDir(runnerTemp, runId) {
    return (0,external_node_path_namespaceObject.resolve)(runnerTemp, 'cloud-agent-artifacts', runId.replace(/[^\w-]/g, '_') || '_');
}
const TASK_SLUG_CHARS = 40;
function taskFolderName(index, title) {
    const slug = (title ?? '')
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .slice(0, TASK_SLUG_CHARS)
        .replace(/^-+|-+$/g, '');
    return slug ? `${index + 1}-${slug}` : String(index + 1);
}
function planDownloads(dir, artifacts) {
    const taken = new Set();
    return artifacts.map((artifact) => {
        const target = safeArtifactPath(dir, artifact.filepath ?? '');
        if (!target.ok)
            return { artifact, refused: target.reason };
        const key = target.path.toLowerCase();
        if (taken.has(key))
            return { artifact, refused: 'another artifact has the same path' };
        taken.add(key);
        return { artifact, path: target.path };
    });
}
function baseName(filepath) {
    if (filepath === undefined)
        return undefined;
    return external_node_path_namespaceObject.posix.basename(filepath.replace(/\\/g, '/')) || undefined;
}
function httpUrl(value) {
    if (typeof value !== 'string')
        return undefined;
    try {
        const url = new URL(value);
        return url.protocol === 'https:' || url.protocol === 'http:' ? value : undefined;
    }
    catch {
        return undefined;
    }
}
function artifacts_text(value) {
    return typeof value === 'string' && value !== '' ? value : undefined;
}
function printable(text) {
    return JSON.stringify(text).slice(1, -1);
}
function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function dropUndefined(record) {
    return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

;// CONCATENATED MODULE: ./src/model/blocked.ts
const ON_BLOCKED = ['wait', 'fail', 'pass'];
function decideOnBlocked(onBlocked) {
    switch (onBlocked) {
        case 'wait':
            return { keepWaiting: true };
        case 'fail':
            return { keepWaiting: false, passes: false };
        case 'pass':
            return { keepWaiting: false, passes: true };
    }
}
function blockedQuestion(statusMessage, lastAgentMessage) {
    const message = typeof statusMessage === 'object' && statusMessage !== null
        ? statusMessage.message
        : undefined;
    if (typeof message === 'string' && message.trim() !== '')
        return message.trim();
    const last = lastAgentMessage?.trim();
    return last ? last : undefined;
}
function howToAnswer(options) {
    const ways = [];
    if (options.sessionLink)
        ways.push(`answer in the session (${options.sessionLink})`);
    if (options.continueRun) {
        ways.push('reply with a comment on this pull request or issue; continue_run passes it on');
    }
    if (ways.length === 0)
        ways.push('answer in the session, in the app');
    const sentence = ways.join(', or ');
    return `To move it on, ${sentence}.`;
}

;// CONCATENATED MODULE: ./src/input-error.ts
class InputError extends Error {
    name = 'InputError';
    input;
    detail;
    constructor(input, message) {
        super(`Input "${input}" ${message}`);
        this.input = input;
        this.detail = message;
    }
}

;// CONCATENATED MODULE: ./src/model/money.ts

function parseAmount(text) {
    const trimmed = text.trim();
    const dollars = /^\$\s?(\d+(?:\.\d+)?)$/.exec(trimmed) ?? /^(\d+(?:\.\d+)?)\s?usd$/i.exec(trimmed);
    if (dollars)
        return { value: Number(dollars[1]), unit: 'usd' };
    const credits = /^(\d+(?:\.\d+)?)(?:\s?credits?)?$/i.exec(trimmed);
    if (credits)
        return { value: Number(credits[1]), unit: 'credits' };
    return undefined;
}
function formatAmount(amount) {
    return amount.unit === 'usd' ? formatUsd(amount.value) : formatCredits(amount.value);
}
function amountInput(amount) {
    return amount.unit === 'usd' ? `$${amount.value}` : `${amount.value} credits`;
}
function costIn(cost, unit) {
    return unit === 'usd' ? cost.usd : cost.credits;
}
function isUnpriced(cost, unit) {
    return costIn(cost, unit) === undefined && (costIn(cost, otherUnit(unit)) ?? 0) > 0;
}
function otherUnit(unit) {
    return unit === 'usd' ? 'credits' : 'usd';
}
function unitName(unit) {
    return unit === 'usd' ? 'US dollars' : 'credits';
}

;// CONCATENATED MODULE: ./src/inputs/values.ts



function parseBoolean(input, value) {
    if (['true', 'True', 'TRUE'].includes(value))
        return true;
    if (['false', 'False', 'FALSE'].includes(value))
        return false;
    throw new InputError(input, `must be true or false; got "${value}".`);
}
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
function parseDuration(input, value) {
    const match = DURATION.exec(value);
    if (!match) {
        throw new InputError(input, `must be a duration such as 500ms, 30s, 10m or 2h (a bare number means seconds); got "${value}".`);
    }
    const unit = (match[2] ?? 's');
    const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
    if (!Number.isSafeInteger(ms))
        throw new InputError(input, `is too long; got "${value}".`);
    return ms;
}
function parsePositiveDuration(input, value) {
    const ms = parseDuration(input, value);
    if (ms <= 0)
        throw new InputError(input, `must be longer than zero; got "${value}".`);
    return ms;
}
function readCampaign(source) {
    const campaign = source.get('campaign');
    if (campaign && !isCampaignName(campaign)) {
        throw new InputError('campaign', `must be a name of at most 64 letters, digits, dots, dashes and underscores; got "${campaign.slice(0, 100)}".`);
    }
    return campaign;
}
function readAmount(input, value) {
    if (!value)
        return undefined;
    const amount = parseAmount(value);
    if (!amount || !Number.isFinite(amount.value) || amount.value <= 0) {
        throw new InputError(input, `must be an amount greater than zero: credits, such as 500, 12.5 or 50 credits, or US dollars, such as $5 or 5 USD (no separators); got "${value}".`);
    }
    return amount;
}
function isPlainObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

;// CONCATENATED MODULE: ./src/inputs/agent-work.ts






function readAgentWork(source, wait) {
    const onBlocked = source.get('on_blocked') || 'wait';
    if (!ON_BLOCKED.includes(onBlocked)) {
        throw new InputError('on_blocked', `must be wait, fail or pass; got "${onBlocked}".`);
    }
    const maxCredits = readAmount('max_credits', source.get('max_credits'));
    let downloadPatterns;
    try {
        downloadPatterns = parseArtifactPatterns(source.get('download_artifacts'));
    }
    catch (error) {
        throw new InputError('download_artifacts', errorMessage(error));
    }
    if (!wait && maxCredits !== undefined) {
        throw new InputError('max_credits', 'needs wait: true: the cap is checked while the step waits.');
    }
    if (!wait && downloadPatterns.length > 0) {
        throw new InputError('download_artifacts', 'needs wait: true: files are downloaded once the run has ended.');
    }
    return {
        onBlocked: onBlocked,
        maxCredits,
        downloadPatterns,
        artifactsDir: readArtifactsDir(source),
        showProgress: parseBoolean('show_progress', source.get('show_progress') || 'false'),
    };
}
function readArtifactsDir(source) {
    const dir = source.get('artifacts_dir');
    if (!dir)
        return '';
    if (dir.includes('\0'))
        throw new InputError('artifacts_dir', 'must not hold a NUL character.');
    return (0,external_node_path_namespaceObject.resolve)(source.world.workspace, dir);
}

;// CONCATENATED MODULE: ./src/inputs/budgets.ts

function readCreditBudgets(source) {
    return {
        daily: readAmount('daily_credit_budget', source.get('daily_credit_budget')),
        pullRequest: readAmount('pr_credit_budget', source.get('pr_credit_budget')),
    };
}

;// CONCATENATED MODULE: ./src/inputs/connection.ts


const DEFAULT_BASE_URL = 'https://app.warp.dev/api/v1';
function readConnection(source) {
    const apiKey = source.get('api_key');
    if (apiKey)
        source.mask(apiKey);
    if (!apiKey)
        throw new InputError('api_key', `is required but empty.${missingKeyHint(source.world)}`);
    if (/[\s\p{Cc}]/u.test(apiKey)) {
        throw new InputError('api_key', 'contains whitespace or control characters; check the secret.');
    }
    return { apiKey, baseUrl: parseBaseUrl(source.get('base_url'), apiKey) };
}
const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
function parseBaseUrl(value, apiKey) {
    if (!value)
        return DEFAULT_BASE_URL;
    const shown = clip(value.split(apiKey).join('***'), 300);
    let url;
    try {
        url = new URL(value);
    }
    catch {
        throw new InputError('base_url', `must be an absolute https:// URL; got "${shown}".`);
    }
    if (url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
        throw new InputError('base_url', `must use https://; plain http:// is allowed only for loopback hosts (127.0.0.0/8, localhost, [::1]), because the key would travel unencrypted. Got "${shown}".`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        throw new InputError('base_url', `must be an https:// URL; got "${shown}".`);
    }
    if (url.username || url.password) {
        throw new InputError('base_url', 'must not contain credentials; pass the key as api_key.');
    }
    if (url.search || url.hash) {
        throw new InputError('base_url', `must not have a query or fragment; got "${shown}".`);
    }
    const path = url.pathname.replace(/\/$/, '');
    if (!path.endsWith('/api/v1')) {
        throw new InputError('base_url', `must end in /api/v1; got "${shown}".`);
    }
    return `${url.origin}${path}`;
}
function missingKeyHint(world) {
    return (forkHint(world) ||
        ' Make a key in the Warp app (Settings > Cloud platform > API keys), add it as a' +
            ' repository secret (Settings > Secrets and variables > Actions), and pass it:' +
            ' api_key: ${{ secrets.WARP_API_KEY }}.');
}
function forkHint(world) {
    const event = world.eventName ?? '';
    if (!event.startsWith('pull_request') || event === 'pull_request_target')
        return '';
    const head = world.event?.pull_request?.head?.repo?.full_name;
    const base = world.event?.pull_request?.base?.repo?.full_name;
    if (head && base && head !== base) {
        return ` This pull request comes from the fork ${head}, and GitHub gives no secrets to workflows triggered from forks.`;
    }
    return '';
}

;// CONCATENATED MODULE: ./src/model/approval.ts
const APPROVAL_POLICIES = ['none', 'forks', 'always'];
const REPOSITORY_ROLES = ['read', 'triage', 'write', 'maintain', 'admin'];
const ROLE_WORDS = ['none', ...REPOSITORY_ROLES];
const RANK = Object.fromEntries(ROLE_WORDS.map((role, rank) => [role, rank]));
function meetsRole(role, least) {
    return RANK[role] >= RANK[least];
}
function approvalNeeded(policy, facts) {
    if (policy === 'always')
        return 'this workflow asks for an approval of every run (`approval: always`)';
    if (policy === 'none')
        return undefined;
    if (facts.fork)
        return 'the change comes from a fork (`approval: forks`)';
    if (facts.wordsBelow) {
        return `the ${facts.wordsBelow} that started it is by someone below \`commenter_permission\` (\`approval: forks\`)`;
    }
    return undefined;
}
function pinValue(pin) {
    return pin.kind === 'commit' ? pin.sha : pin.digest;
}
function pinWords(pin) {
    return pin.kind === 'commit' ? `commit ${approval_short(pin.sha)}` : `${pin.item} as it reads now`;
}
const ITEM_DIGEST_LENGTH = 20;
const MIN_APPROVE_SHA = 7;
const HEX = /^[0-9a-f]+$/;
function approveCommandOf(body) {
    const firstLine = (body ?? '').trimStart().split('\n', 1)[0] ?? '';
    const words = firstLine.trim().split(/[ \t]+/);
    if (words.length !== 2 || words[0] !== '/approve')
        return undefined;
    const sha = (words[1] ?? '').toLowerCase();
    return sha.length >= MIN_APPROVE_SHA && sha.length <= 40 && HEX.test(sha) ? sha : undefined;
}
function looksLikeApprove(body) {
    return (body ?? '').trimStart().startsWith('/approve');
}
function approveLine(head) {
    return `/approve ${head}`;
}
function screenApproval(claim, target) {
    const who = `@${claim.login}`;
    const refuse = (reason) => ({ kind: 'refused', reason });
    if (claim.void)
        return refuse(claim.void);
    if (claim.isBot)
        return refuse(`${who} is a bot, and bots never approve`);
    const { pin } = target;
    if (target.author !== undefined && claim.login.toLowerCase() === target.author.toLowerCase()) {
        return refuse(pin.kind === 'commit'
            ? `${who} opened the pull request, and its author never approves it`
            : `${who} wrote ${pin.item}, and its author never approves it`);
    }
    if (pin.kind === 'item') {
        return claim.sha === pin.digest
            ? { kind: 'check-permission', login: claim.login }
            : refuse(`the comment approves ${claim.sha}, not ${pin.item} as it reads now (${pin.digest}); an edited item needs a new approval`);
    }
    if (!namesHead(claim.sha, pin.sha)) {
        return refuse(`the ${claim.via === 'review' ? 'review' : 'comment'} approves ${approval_short(claim.sha)}, not the head ${approval_short(pin.sha)}; a newer push needs a new approval`);
    }
    return { kind: 'check-permission', login: claim.login };
}
function namesHead(sha, head) {
    const given = sha.toLowerCase();
    return given.length >= MIN_APPROVE_SHA && head.toLowerCase().startsWith(given);
}
function judgeApprover(claim, role, least, pin) {
    const who = `@${claim.login}`;
    if (meetsRole(role, least)) {
        const how = claim.via === 'review' ? 'a review' : 'a comment';
        const what = pin.kind === 'commit' ? approval_short(pin.sha) : pin.item;
        return {
            counts: true,
            reason: `${who} (${role}) approved ${what} in ${how} (approver_permission: ${least})`,
        };
    }
    return {
        counts: false,
        reason: `${who} has ${role === 'none' ? 'no' : role} permission on the repository; approver_permission asks for at least ${least}`,
    };
}
function madeAfterRecord(madeAt, record, what) {
    const made = Date.parse(madeAt ?? '');
    const written = Date.parse(record.writtenAt ?? '');
    if (!Number.isFinite(made) || !Number.isFinite(written)) {
        return 'GitHub did not say when the approval and the wait were made, so their order cannot be checked';
    }
    if (Math.floor(made / 1000) <= Math.floor(written / 1000)) {
        return `the approval of ${what} was made before, or in the same second as, the key's comment on the thread was last written; an approval counts only when made after it, and admits one run: approve again`;
    }
    return undefined;
}
function approvalAfterWait(comment, head, waiting) {
    if (waiting?.pin === undefined) {
        if (comment.sha.length < 40) {
            return 'no step waited for this head, so a comment must give its whole SHA';
        }
        return waiting && madeAfterRecord(comment.madeAt, waiting, approval_short(head));
    }
    if (waiting.pin !== head) {
        return `the head moved to ${approval_short(head)} after the step waited for ${approval_short(waiting.pin)}; a newer push needs a new approval`;
    }
    return madeAfterRecord(comment.madeAt, waiting, approval_short(head));
}
function approval_short(sha) {
    return sha.slice(0, 12);
}

;// CONCATENATED MODULE: ./src/inputs/github.ts


function readGitHubToken(source) {
    const token = source.get('github_token');
    if (token)
        source.mask(token);
    return token;
}
function conversationKey(source) {
    const name = source.get('name');
    if (name)
        return name;
    return `${source.world.workflow ?? 'workflow'}/${source.world.job ?? 'job'}`;
}
function readRole(input, value) {
    const role = value || 'write';
    if (REPOSITORY_ROLES.includes(role))
        return role;
    throw new InputError(input, `must be one of ${REPOSITORY_ROLES.join(', ')}; got "${value}".`);
}
function readApproval(source, continueRun) {
    const value = source.get('approval') || 'none';
    const policy = APPROVAL_POLICIES.find((word) => word === value);
    if (!policy) {
        throw new InputError('approval', `must be none, forks or always; got "${value}".`);
    }
    if (policy === 'none')
        return policy;
    const other = continueRun
        ? 'continue_run'
        : ['run_id', 'tasks'].find((name) => source.get(name) !== '');
    if (other) {
        throw new InputError('approval', `cannot be combined with ${other}: an approved commit starts one new run from the step's prompt, and a comment's text never reaches it.`);
    }
    return policy;
}
function readApproverPermission(source, approval) {
    const role = readRole('approver_permission', source.get('approver_permission'));
    const repository = source.world.event?.repository;
    const isPublic = repository?.private === false || repository?.visibility === 'public';
    if (approval !== 'none' && isPublic && !meetsRole(role, 'triage')) {
        throw new InputError('approver_permission', `is ${role} on a public repository, where anyone has read permission: anyone could approve a paid run. Use triage or above (write, the default, is the usual choice).`);
    }
    return role;
}
const LOGIN = /^[a-z\d](?:[a-z\d-]{0,38})(?:\[bot\])?$/i;
function readBots(value) {
    const logins = value
        .split(/[,\n]/)
        .map((login) => login.trim())
        .filter((login) => login !== '');
    for (const login of logins) {
        if (!LOGIN.test(login)) {
            throw new InputError('allowed_bots', `must be GitHub logins separated by commas, such as renovate[bot]; "${login}" is not one.`);
        }
    }
    return logins.map((login) => login.toLowerCase().replace(/\[bot\]$/, ''));
}

;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");
;// CONCATENATED MODULE: ./src/inputs/output.ts




const MAX_OUTPUT_RETRIES = 10;
function readOutput(source, wait) {
    const pullRequestReview = parseBoolean('pull_request_review', source.get('pull_request_review') || 'false');
    const checkRun = parseBoolean('check_run', source.get('check_run') || 'false');
    const retriesText = source.get('output_retries') || '2';
    const retries = /^\d+$/.test(retriesText) ? Number(retriesText) : NaN;
    if (!(retries <= MAX_OUTPUT_RETRIES)) {
        throw new InputError('output_retries', `must be a whole number from 0 to ${MAX_OUTPUT_RETRIES}; got "${retriesText}".`);
    }
    const schema = readSchemaSource(source);
    if (schema && pullRequestReview) {
        throw new InputError('output_schema', 'cannot be combined with pull_request_review, which asks for its own review document.');
    }
    for (const [input, asked] of [
        ['output_schema', schema !== undefined],
        ['pull_request_review', pullRequestReview],
        ['check_run', checkRun],
    ]) {
        if (asked && !wait) {
            throw new InputError(input, "needs wait: true: it acts on the run's result.");
        }
    }
    return { schema, retries, pullRequestReview, checkRun };
}
function readSchemaSource(source, input = 'output_schema') {
    const value = source.get('output_schema');
    if (!value)
        return undefined;
    if (/^[{[]|\n|:\s/.test(value))
        return { input, text: value };
    const workspace = source.world.workspace;
    const path = (0,external_node_path_namespaceObject.resolve)(workspace, value);
    try {
        if (!isWithin((0,external_node_fs_namespaceObject.realpathSync)(workspace), (0,external_node_fs_namespaceObject.realpathSync)(path))) {
            throw new InputError(input, `must name a file in the workspace (${workspace}); "${value}" is outside it. ` +
                'Copy the schema into the workspace, or give it inline.');
        }
        if ((0,external_node_fs_namespaceObject.statSync)(path).size > MAX_SCHEMA_BYTES) {
            throw new InputError(input, `names a file over 1 MiB: ${path}.`);
        }
        return { input, text: (0,external_node_fs_namespaceObject.readFileSync)(path, 'utf8'), file: path };
    }
    catch (error) {
        if (error instanceof InputError)
            throw error;
        const reason = error.code ?? String(error);
        throw new InputError(input, `is neither an inline schema nor a file that can be read: ${path} (${reason}).`);
    }
}
const MAX_SCHEMA_BYTES = 1024 * 1024;
function isWithin(dir, path) {
    const rest = (0,external_node_path_namespaceObject.relative)(dir, path);
    return rest !== '..' && !rest.startsWith(`..${external_node_path_namespaceObject.sep}`) && !(0,external_node_path_namespaceObject.isAbsolute)(rest);
}

;// CONCATENATED MODULE: ./src/inputs/mcp-servers.ts



const MAX_MCP_DEPTH = 16;
function parseMcpServers(value) {
    if (!value)
        return undefined;
    let parsed;
    try {
        parsed = JSON.parse(value);
    }
    catch (error) {
        const reason = errorMessage(error);
        throw new InputError('mcp_servers', `must be JSON; it does not parse (${reason}).`);
    }
    if (!isPlainObject(parsed)) {
        throw new InputError('mcp_servers', 'must be a JSON object mapping server names to their configuration.');
    }
    if (depthOf(parsed, MAX_MCP_DEPTH) > MAX_MCP_DEPTH) {
        throw new InputError('mcp_servers', `nests deeper than ${MAX_MCP_DEPTH} levels.`);
    }
    const servers = {};
    for (const [name, server] of Object.entries(parsed)) {
        servers[name] = parseMcpServer(name, server);
    }
    return servers;
}
const MCP_SERVER_KINDS = ['warp_id', 'command', 'url'];
function parseMcpServer(name, server) {
    const fail = (problem) => {
        throw new InputError('mcp_servers', `entry "${name}" ${problem}`);
    };
    const kindsHelp = '"warp_id" (a server saved in the service), "command" (a local server) or "url" (a remote one)';
    if (!isPlainObject(server))
        return fail(`must be an object with exactly one of ${kindsHelp}.`);
    const kinds = MCP_SERVER_KINDS.filter((kind) => server[kind] !== undefined);
    if (kinds.length !== 1) {
        return fail(kinds.length === 0
            ? `must have exactly one of ${kindsHelp}.`
            : `has ${kinds.map((kind) => `"${kind}"`).join(' and ')}; give exactly one of ${kindsHelp}.`);
    }
    for (const kind of kinds) {
        const value = server[kind];
        if (typeof value !== 'string' || value.trim() === '') {
            fail(`has a "${kind}" that is not a non-empty string.`);
        }
    }
    if (typeof server.url === 'string' && !URL.canParse(server.url)) {
        fail(`has a "url" that is not a URL.`);
    }
    const args = server.args;
    if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
        fail(`has "args" that is not a list of strings.`);
    }
    for (const map of ['env', 'headers']) {
        const value = server[map];
        if (value !== undefined && !isStringMap(value)) {
            fail(`has "${map}" that is not an object of strings.`);
        }
    }
    return server;
}
function isStringMap(value) {
    return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
}
function depthOf(value, limit) {
    let deepest = 0;
    const pending = [[value, 1]];
    while (pending.length > 0) {
        const [item, depth] = pending.pop();
        if (typeof item !== 'object' || item === null)
            continue;
        deepest = Math.max(deepest, depth);
        if (deepest > limit)
            return deepest;
        for (const child of Object.values(item))
            pending.push([child, depth + 1]);
    }
    return deepest;
}

;// CONCATENATED MODULE: ./src/inputs/surface.ts

const HARNESSES = ['oz', 'claude', 'codex', 'gemini'];
const CONTINUE_FROM = ['pull_request'];
const WORKER_HOST = /^[^\s\p{Cc}]{1,253}$/u;
function surfaceConfig(values, names = {
    harness: 'harness',
    workerHost: 'worker_host',
}) {
    const { harness, workerHost } = values;
    if (harness && !HARNESSES.includes(harness)) {
        return {
            input: names.harness,
            message: `must be one of ${HARNESSES.join(', ')}, or empty to let the service choose; got ${JSON.stringify(cut(harness, 100))}.`,
        };
    }
    if (workerHost && !WORKER_HOST.test(workerHost)) {
        return {
            input: names.workerHost,
            message: `must name one worker host: up to 253 characters, no spaces or control characters; got ${JSON.stringify(cut(workerHost, 100))}.`,
        };
    }
    return {
        ...(harness ? { harness: { type: harness } } : {}),
        ...(workerHost ? { worker_host: workerHost } : {}),
    };
}
function isProblem(value) {
    return 'input' in value && 'message' in value;
}
function readContinueFrom(value, given) {
    if (!value)
        return undefined;
    if (!CONTINUE_FROM.includes(value)) {
        return {
            input: 'continue_from',
            message: `must be pull_request, or empty; got ${JSON.stringify(cut(value, 100))}.`,
        };
    }
    const clash = given.tasks
        ? 'tasks: a set starts one run per task'
        : given.runId
            ? 'run_id: run_id names the run to act on'
            : given.continueRun
                ? "continue_run: continue_run follows the run of this step's comment"
                : given.steer
                    ? 'previous_run: steer: steer sends the work to the active run of its key'
                    : undefined;
    if (clash) {
        return {
            input: 'continue_from',
            message: `cannot be combined with ${clash}, while continue_from sends it to the run that made the pull request.`,
        };
    }
    return 'pull_request';
}

;// CONCATENATED MODULE: ./src/inputs/run-target.ts







function readTarget(source, continueRun) {
    const runId = source.get('run_id');
    const followup = source.get('followup');
    if (runId && continueRun) {
        throw new InputError('continue_run', 'cannot be combined with run_id: continue_run finds the run on the comment thread.');
    }
    if (runId) {
        checkNoCreateInputs(source);
        return { kind: 'existing', runId: checkRunId(runId), followup: followup || undefined };
    }
    if (continueRun) {
        const prompt = readPrompt(source);
        if (!prompt && !followup) {
            throw new InputError('continue_run', 'needs followup or prompt: the message to send.');
        }
        const request = readCreateRequest(source, prompt || followup);
        return { kind: 'continue', message: followup || prompt, request };
    }
    if (followup) {
        throw new InputError('followup', 'needs run_id (or continue_run: true): it is a message to an existing run.');
    }
    return { kind: 'create', request: readCreateRequest(source, readPrompt(source)) };
}
function readPrompt(source) {
    const prompt = source.get('prompt');
    const file = source.get('prompt_file');
    if (!file)
        return checkPromptSize('prompt', prompt);
    if (prompt)
        throw new InputError('prompt_file', 'cannot be combined with prompt; give one of them.');
    const text = readWorkspaceFile(source, 'prompt_file', (bytes) => checkPromptSize('prompt_file', '', bytes));
    return checkPromptSize('prompt_file', text);
}
function readWorkspaceFile(source, input, checkSize) {
    const path = (0,external_node_path_namespaceObject.resolve)(source.world.workspace, source.get(input));
    let text;
    try {
        checkSize((0,external_node_fs_namespaceObject.statSync)(path).size);
        text = (0,external_node_fs_namespaceObject.readFileSync)(path, 'utf8');
    }
    catch (error) {
        if (error instanceof InputError)
            throw error;
        const reason = error.code ?? String(error);
        throw new InputError(input, `cannot be read: ${path} (${reason}).`);
    }
    if (text.trim() === '')
        throw new InputError(input, `names an empty file: ${path}.`);
    return text.trim();
}
function checkPromptSize(input, prompt, bytes = Buffer.byteLength(prompt)) {
    if (bytes > MAX_PROMPT_BYTES) {
        throw new InputError(input, `is ${bytes} bytes; the longest prompt the action sends is ${MAX_PROMPT_BYTES} bytes (1 MiB).`);
    }
    return prompt;
}
const SINGLE_RUN_INPUTS = ['prompt', 'prompt_file', 'run_id', 'followup'];
const CREATE_ONLY_INPUTS = [
    'prompt',
    'prompt_file',
    'title',
    'environment_id',
    'skill_spec',
    'model_id',
    'base_prompt',
    'name',
    'mcp_servers',
    'harness',
    'worker_host',
];
function readCreateRequest(source, prompt) {
    const skillSpec = source.get('skill_spec');
    if (!prompt && !skillSpec) {
        throw new InputError('prompt', 'is required unless skill_spec is given, or run_id names an existing run.');
    }
    if (skillSpec && !/^[\w.-]+\/[\w.-]+:\S+$/.test(skillSpec)) {
        throw new InputError('skill_spec', `must look like owner/repo:skill-name or owner/repo:path/to/SKILL.md; got "${skillSpec}".`);
    }
    const surface = surfaceConfig({
        harness: source.get('harness'),
        workerHost: source.get('worker_host'),
    });
    if (isProblem(surface))
        throw new InputError(surface.input, surface.message);
    const config = dropEmpty({
        ...surface,
        name: source.get('name'),
        model_id: source.get('model_id'),
        base_prompt: source.get('base_prompt'),
        environment_id: source.get('environment_id'),
        skill_spec: skillSpec,
        mcp_servers: parseMcpServers(source.get('mcp_servers')),
    });
    return dropEmpty({
        prompt,
        title: source.get('title'),
        config: Object.keys(config).length > 0 ? config : undefined,
    });
}
function checkRunId(runId) {
    const shown = runId;
    if (!isRunId(runId)) {
        throw new InputError('run_id', `must be a run ID: up to 200 letters, digits, ".", "_" or "-", and not "." or ".." (no "/", spaces or control characters); got ${JSON.stringify(cut(shown, 200))}.`);
    }
    return runId;
}
function checkNoCreateInputs(source) {
    const given = CREATE_ONLY_INPUTS.filter((name) => source.get(name) !== '');
    if (given.length > 0) {
        throw new InputError(given[0] ?? 'prompt', `cannot be combined with run_id, which acts on an existing run (also given: ${given.join(', ')}). ` +
            'To send a message to that run, use followup.');
    }
}
function dropEmpty(record) {
    return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== '' && value !== undefined));
}

;// CONCATENATED MODULE: ./src/inputs/main-step.ts










const PREVIOUS_RUN_WORDS = ['keep', 'cancel', 'steer'];
function readPreviousRun(source) {
    const legacy = parseBoolean('cancel_previous', source.get('cancel_previous') || 'false');
    const given = source.get('previous_run') || 'keep';
    const word = PREVIOUS_RUN_WORDS.find((one) => one === given);
    if (!word) {
        throw new InputError('previous_run', `must be keep, cancel or steer, not "${given}".`);
    }
    if (legacy && word === 'steer') {
        throw new InputError('previous_run', "cannot be steer with cancel_previous: true: steer sends this step's work to the active run instead of cancelling it. Drop cancel_previous.");
    }
    return legacy ? 'cancel' : word;
}
const DEFAULT_TIMEOUT = '60m';
function readSettings(source) {
    let target;
    let previousRun = 'keep';
    let continueFrom;
    const step = readStepSettings(source, (continueRun) => {
        previousRun = readPreviousRun(source);
        target = readTarget(source, continueRun);
        const asked = readContinueFrom(source.get('continue_from'), {
            tasks: false,
            runId: target.kind === 'existing',
            continueRun,
            steer: previousRun === 'steer',
        });
        if (typeof asked === 'object')
            throw new InputError(asked.input, asked.message);
        continueFrom = asked;
        const legacy = parseBoolean('cancel_previous', source.get('cancel_previous') || 'false');
        const input = legacy ? 'cancel_previous' : 'previous_run';
        if (previousRun === 'cancel' && !(target.kind !== 'existing' && target.request.config?.name)) {
            throw new InputError(input, target.kind === 'existing'
                ? 'cannot be combined with run_id: it applies only to creating a run.'
                : 'needs name: the runs it cancels are the active ones with the same name.');
        }
        if (previousRun === 'cancel')
            needsProject(source, input);
        if (previousRun === 'steer' && source.world.forge !== 'github' && !source.steering) {
            throw new InputError('previous_run', `cannot be steer here: steering compares a pull or merge request's heads, so it works in GitHub Actions and in a GitLab merge request pipeline with GITLAB_TOKEN; elsewhere, ${inputNamed(source, 'previous_run', 'cancel')} replaces the run instead.`);
        }
        if (previousRun === 'steer' && target.kind !== 'create') {
            throw new InputError('previous_run', target.kind === 'existing'
                ? "cannot be steer with run_id: steer starts from this step's prompt, sent to the active run of its key."
                : 'cannot be steer with continue_run: continue_run already sends the comment to the run it answers.');
        }
    });
    if (!target)
        throw new Error('unreachable: readStepSettings reads the target');
    const cancelPrevious = cancelAskedBy(source, previousRun);
    return { ...step, target, cancelPrevious, previousRun, ...(continueFrom ? { continueFrom } : {}) };
}
function cancelAskedBy(source, previousRun) {
    if (previousRun !== 'cancel')
        return undefined;
    return parseBoolean('cancel_previous', source.get('cancel_previous') || 'false')
        ? inputNamed(source, 'cancel_previous')
        : inputNamed(source, 'previous_run', 'cancel');
}
function readStepSettings(source, readTarget, connection = readConnection(source)) {
    const githubToken = readGitHubToken(source);
    const comment = parseBoolean('comment', source.get('comment') || 'false');
    const continueRun = parseBoolean('continue_run', source.get('continue_run') || 'false');
    const commitStatus = parseBoolean('commit_status', source.get('commit_status') || 'false');
    const commenterPermission = readRole('commenter_permission', source.get('commenter_permission'));
    const allowedBots = readBots(source.get('allowed_bots'));
    const approval = readApproval(source, continueRun);
    const approverPermission = readApproverPermission(source, approval);
    readTarget(continueRun);
    const timeoutMs = parsePositiveDuration('timeout', source.get('timeout') || DEFAULT_TIMEOUT);
    const wait = parseBoolean('wait', source.get('wait') || 'true');
    const output = readOutput(source, wait);
    const needsToken = comment
        ? 'comment'
        : approval !== 'none'
            ? 'approval'
            : continueRun
                ? 'continue_run'
                : commitStatus
                    ? 'commit_status'
                    : output.pullRequestReview
                        ? 'pull_request_review'
                        : output.checkRun
                            ? 'check_run'
                            :
                                source.get('previous_run') === 'steer' && !source.steering
                                    ? 'previous_run: steer'
                                    : '';
    if (needsToken && !githubToken) {
        throw new InputError('github_token', `is required by ${needsToken}; give it \${{ github.token }} (the default) with the permissions the README lists for ${needsToken}.`);
    }
    return {
        ...connection,
        wait,
        timeoutMs,
        pollIntervalMs: readPollInterval(source.get('poll_interval'), timeoutMs),
        github: {
            token: needsToken ? githubToken : '',
            comment,
            commitStatus,
            key: conversationKey(source),
            commenterPermission,
            allowedBots,
            approval,
            approverPermission,
        },
        agentWork: readAgentWork(source, wait),
        output,
        budgets: readBudgets(source),
    };
}
function readBudgets(source) {
    const budgets = readCreditBudgets(source);
    if (source.get('campaign')) {
        if (budgets.pullRequest !== undefined) {
            throw new InputError('pr_credit_budget', "cannot be combined with campaign: a campaign's runs are each on their own repository, not on this step's pull request. daily_credit_budget counts each task's repository.");
        }
        return { daily: undefined, pullRequest: undefined };
    }
    const given = budgets.daily !== undefined ? 'daily_credit_budget' : 'pr_credit_budget';
    if ((budgets.daily ?? budgets.pullRequest) !== undefined && !source.world.project) {
        throw new InputError(given, 'counts the runs of one project, and none is named: outside GitHub and GitLab, name it with --project.');
    }
    return budgets;
}
function readPollInterval(value, timeoutMs) {
    if (!value)
        return timing/* POLL_INTERVAL */.a0.defaultMs;
    const ms = parseDuration('poll_interval', value);
    if (ms < timing/* POLL_INTERVAL */.a0.minMs) {
        throw new InputError('poll_interval', `must be at least ${timing/* POLL_INTERVAL */.a0.minMs}ms; got "${value}".`);
    }
    if (ms > timeoutMs) {
        throw new InputError('poll_interval', `("${value}") is longer than timeout (${timeoutMs / 1000}s): the run would never be polled.`);
    }
    return ms;
}
function readCancelOnly(source) {
    if (!parseBoolean('cancel_only', source.get('cancel_only') || 'false'))
        return undefined;
    const connection = readConnection(source);
    const name = source.get('name');
    const continueFrom = source.get('continue_from');
    if (continueFrom !== '' && continueFrom !== 'pull_request') {
        throw new InputError('continue_from', `must be pull_request or empty; got "${continueFrom}".`);
    }
    const madeThePullRequest = continueFrom === 'pull_request';
    const campaign = readCampaign(source);
    if (!name && !madeThePullRequest && !campaign) {
        throw new InputError('cancel_only', "needs name (it cancels the active runs with that name), continue_from: pull_request (the run that made the pull request), or campaign (the campaign's working runs).");
    }
    if (name || madeThePullRequest)
        needsProject(source, 'cancel_only');
    const others = [...new Set([...CREATE_ONLY_INPUTS, ...SINGLE_RUN_INPUTS])].filter((input) => input !== 'name' && source.get(input) !== '');
    for (const flag of ['continue_run', 'cancel_previous', 'comment', 'commit_status']) {
        if (parseBoolean(flag, source.get(flag) || 'false'))
            others.push(flag);
    }
    if (others.length > 0) {
        throw new InputError('cancel_only', `cannot be combined with ${others.join(', ')}: it only cancels the runs named by name.`);
    }
    return { ...connection, name, madeThePullRequest, campaign };
}
function needsProject(source, input) {
    if (source.world.project)
        return;
    throw new InputError(input, `${input === 'previous_run' ? 'cancel ' : ''}needs a project: it cancels only the name's runs of one project, and none is named; outside GitHub and GitLab, name it with --project.`);
}
function inputNamed(source, input, value) {
    if (source.nameOf)
        return source.nameOf(input, value);
    return value === undefined ? input : `${input}: ${value}`;
}

;// CONCATENATED MODULE: ./src/inputs/task-set.ts









const TASKS_FILE_MAX_BYTES = 16 * 1024 * 1024;
const NOT_A_TASK_KEY = ['prompt_file', 'mcp_servers'];
const TASK_KEYS = [
    ...CREATE_ONLY_INPUTS.filter((input) => !NOT_A_TASK_KEY.includes(input)),
    'output_schema',
];
const TASKS_REFUSE = [
    ...SINGLE_RUN_INPUTS.map((input) => [input, 'x']),
    ['continue_run', 'true'],
    ['pull_request_review', 'true'],
    ['previous_run', 'steer'],
    ['continue_from', 'pull_request'],
];
async function readTaskSettings(source) {
    const value = readTaskList(source);
    const campaign = source.get('campaign');
    if (!value) {
        if (campaign) {
            throw new InputError('campaign', 'needs tasks (or tasks_file): a campaign is one instruction over many repositories, one task each.');
        }
        return undefined;
    }
    readCampaign(source);
    const connection = readConnection(source);
    for (const name of SINGLE_RUN_INPUTS) {
        if (source.get(name)) {
            throw new InputError('tasks', `cannot be combined with ${name}: each task is one run, with its own prompt.`);
        }
    }
    if (source.get('continue_from')) {
        throw new InputError('tasks', 'cannot be combined with continue_from: a set starts one run per task, while continue_from sends one prompt to the run that made the pull request.');
    }
    const items = await parseTaskList(value);
    const read = items.map((item, index) => readTask(source, item, index, campaign || undefined));
    refuseTwoOfOneRepository(read.map((task) => task.repository));
    const tasks = read.map((task) => task.request);
    const taskSchemas = read.map((task) => task.schema);
    const step = readStepSettings(source, (continueRun) => {
        if (continueRun) {
            throw new InputError('tasks', 'cannot be combined with continue_run: it applies to one run.');
        }
    }, connection);
    if (step.output.pullRequestReview) {
        throw new InputError('tasks', 'cannot be combined with pull_request_review: it applies to one run.');
    }
    const previousRun = readPreviousRun(source);
    if (previousRun === 'steer') {
        throw new InputError('tasks', 'cannot be combined with previous_run: steer: a set starts one run per task.');
    }
    const cancelPrevious = cancelAskedBy(source, previousRun);
    if (cancelPrevious) {
        const legacy = cancelPrevious === inputNamed(source, 'cancel_previous');
        needsProject(source, legacy ? 'cancel_previous' : 'previous_run');
    }
    const unnamed = tasks.findIndex((task) => !task.config?.name);
    if (cancelPrevious && unnamed >= 0) {
        throw new InputError('cancel_previous', `needs name: the runs it cancels are the active ones with each task's name, and task ${unnamed + 1} has none (give the step a name, or the task its own).`);
    }
    const ownSchema = taskSchemas.find((schema) => schema !== undefined);
    if (ownSchema && !step.wait) {
        throw new InputError('tasks', `${ownSchema.input} needs wait: true: it acts on the run's result.`);
    }
    const maxParallel = readPositiveInteger('max_parallel', source.get('max_parallel') || '10');
    if (!step.wait && maxParallel < tasks.length) {
        throw new InputError('max_parallel', `is ${maxParallel}, below the ${tasks.length} tasks: with wait: false the step starts every task at once and does not stay to start the rest; give max_parallel of at least ${tasks.length}, or wait: true.`);
    }
    const repositories = read.map((task) => task.repository);
    const repositoryBudget = campaign ? readRepositoryBudget(source, repositories) : undefined;
    return {
        ...step,
        ...(repositoryBudget ? { repositoryBudget } : {}),
        tasks,
        taskSchemas,
        cancelPrevious,
        previousRun,
        maxParallel,
        passWhen: readPassWhen(source.get('pass_when') || 'all', tasks.length),
        ...(campaign ? { campaign } : {}),
        repositories,
    };
}
function readRepositoryBudget(source, repositories) {
    const budget = readCreditBudgets(source).daily;
    const unnamed = repositories.findIndex((repository) => repository === undefined);
    if (budget !== undefined && unnamed >= 0 && !source.world.project) {
        throw new InputError('daily_credit_budget', `counts each task's repository, and task ${unnamed + 1} names none, nor does the step have a project to count by: give the task its repository.`);
    }
    return budget;
}
function readTaskList(source) {
    const tasks = source.get('tasks');
    const file = source.get('tasks_file');
    if (!file)
        return tasks;
    if (tasks)
        throw new InputError('tasks_file', 'cannot be combined with tasks; give one of them.');
    return readWorkspaceFile(source, 'tasks_file', (bytes) => {
        if (bytes > TASKS_FILE_MAX_BYTES) {
            throw new InputError('tasks_file', `names a file of ${bytes} bytes, over 16 MiB: ${file}.`);
        }
    });
}
function refuseTwoOfOneRepository(repositories) {
    const seen = new Map();
    for (const [index, repository] of repositories.entries()) {
        if (!repository)
            continue;
        const name = repositoryName(repository).toLowerCase();
        const first = seen.get(name);
        if (first !== undefined) {
            throw new InputError('tasks', `tasks ${first + 1} and ${index + 1} both name the repository ${repositoryName(repository)}: a campaign runs one task per repository.`);
        }
        seen.set(name, index);
    }
}
function withWhatWasRead(message, text) {
    const position = /\bposition (\d+)/.exec(message)?.[1];
    if (position === undefined)
        return message;
    const at = Number(position);
    const near = text.slice(Math.max(0, at - 10), at + 20).replace(/\s+/g, ' ');
    return `${message.replace(/\s*\(line \d+ column \d+\)/, '')}, at ${JSON.stringify(near)}`;
}
async function parseTaskList(value) {
    let list;
    let jsonError;
    try {
        list = value.startsWith('[') ? JSON.parse(value) : undefined;
    }
    catch (error) {
        jsonError = withWhatWasRead(errorMessage(error), value);
        list = undefined;
    }
    if (list === undefined) {
        const { parse } = await __nccwpck_require__.e(/* import() */ 815).then(__nccwpck_require__.t.bind(__nccwpck_require__, 8815, 19));
        try {
            list = parse(value, { maxAliasCount: 0 });
        }
        catch (error) {
            const reason = jsonError ?? (error instanceof Error ? error.message.split('\n')[0] : String(error));
            throw new InputError('tasks', `is neither a JSON nor a YAML list: ${asSentence(cut(reason ?? '', 300))} ` +
                'Give one task a line as a YAML list ("- Update package a"), or a JSON array of strings or objects.');
        }
    }
    if (!Array.isArray(list)) {
        throw new InputError('tasks', 'must be a list (YAML or JSON), one item per run.');
    }
    if (list.length === 0)
        throw new InputError('tasks', 'is an empty list: give at least one task.');
    return list;
}
function readTask(source, item, index, campaign) {
    const where = `task ${index + 1}`;
    const fields = {};
    let repository;
    if (typeof item === 'string') {
        fields.prompt = item.trim();
    }
    else if (isPlainObject(item)) {
        for (const [key, field] of Object.entries(item)) {
            if (key !== 'repository' && !TASK_KEYS.includes(key)) {
                throw new InputError('tasks', `${where} has an unknown key "${cut(key, 100)}"; a task takes ${TASK_KEYS.join(', ')}, and with campaign repository.`);
            }
            if (typeof field !== 'string' && typeof field !== 'number') {
                throw new InputError('tasks', `${where}'s ${key} must be a string.`);
            }
            if (key === 'repository')
                repository = readRepository(String(field).trim(), where, campaign);
            else
                fields[key] = String(field).trim();
        }
    }
    else {
        throw new InputError('tasks', `${where} must be a prompt or a mapping with a prompt.`);
    }
    const prompt = fields.prompt ?? '';
    checkPromptSize(`tasks (${where}'s prompt)`, prompt);
    if (repository && campaign) {
        if (fields.name !== undefined) {
            throw new InputError('tasks', `${where} names both a repository and a name: a campaign task's name is <campaign>/<repository>.`);
        }
        fields.name = campaignKey(campaign, repository);
    }
    const merged = {
        ...source,
        get: (name) => name in fields ? (fields[name] ?? '') : source.get(name),
    };
    if (!prompt && !merged.get('skill_spec')) {
        throw new InputError('tasks', `${where} has no prompt (and no skill_spec): give it one.`);
    }
    try {
        const own = fields.output_schema === undefined ? undefined : readSchemaSource(merged);
        const schema = own && { ...own, input: `${where}'s output_schema` };
        return { request: readCreateRequest(merged, prompt), schema, repository };
    }
    catch (error) {
        if (!(error instanceof InputError))
            throw error;
        throw new InputError('tasks', `${where}: ${error.message}`);
    }
}
function readRepository(text, where, campaign) {
    if (!campaign) {
        throw new InputError('tasks', `${where} names a repository, which only a campaign's tasks do: give the step a campaign.`);
    }
    const repository = parseRepository(text);
    if (!repository) {
        throw new InputError('tasks', `${where}'s repository must be owner/repo, or gitlab:group/app for a GitLab project; got "${cut(text, 200)}".`);
    }
    return repository;
}
function readPositiveInteger(input, value) {
    if (!/^\d+$/.test(value) || Number(value) < 1) {
        throw new InputError(input, `must be a whole number of at least 1; got "${value}".`);
    }
    return Number(value);
}
function readPassWhen(value, taskCount) {
    if (value === 'all')
        return { kind: 'all' };
    if (value === 'any')
        return { kind: 'any' };
    if (!/^\d+$/.test(value) || Number(value) < 1) {
        throw new InputError('pass_when', `must be all, any, or a number of runs; got "${value}".`);
    }
    const count = Number(value);
    if (count > taskCount) {
        throw new InputError('pass_when', `asks for ${count} successful runs, but tasks has only ${taskCount}; give all, any, or a number up to ${taskCount}.`);
    }
    return { kind: 'at-least', count };
}

;// CONCATENATED MODULE: ./src/agent/conversation.ts

const MAX_DEPTH = 32;
function parseConversation(body) {
    return { steps: parseSteps(conversation_isRecord(body) ? body.steps : undefined, 0) };
}
function parseSteps(value, depth) {
    if (!Array.isArray(value) || depth > MAX_DEPTH)
        return [];
    return value.filter(conversation_isRecord).map((step) => ({
        id: stringOr(step.id, ''),
        summary: nonEmpty(step.summary) ?? nonEmpty(step.description),
        completed: typeof step.completed_at === 'string' && step.completed_at !== '',
        messages: Array.isArray(step.messages) ? step.messages.filter(conversation_isRecord).map(parseMessage) : [],
        steps: parseSteps(step.steps, depth + 1),
    }));
}
function parseMessage(message) {
    const blocks = Array.isArray(message.content) ? message.content.filter(conversation_isRecord) : [];
    const at = typeof message.timestamp === 'string' ? Date.parse(message.timestamp) : NaN;
    return {
        role: stringOr(message.role, ''),
        at: Number.isFinite(at) ? at : undefined,
        texts: blocks
            .filter((block) => block.type === 'text' && typeof block.text === 'string')
            .map((block) => block.text),
        actions: blocks
            .filter((block) => block.type === 'action')
            .map((block) => ({
            id: stringOr(block.id, ''),
            category: stringOr(block.category, ''),
            name: stringOr(block.name, ''),
        }))
            .filter((action) => action.category !== '' || action.name !== ''),
    };
}
function messagesInOrder(conversation) {
    const out = [];
    const visit = (steps) => {
        for (const step of steps) {
            out.push(...step.messages);
            visit(step.steps);
        }
    };
    visit(conversation.steps);
    return out;
}
function finalAnswer(conversation) {
    const candidates = messagesInOrder(conversation)
        .map((message, order) => ({ message, order, text: message.texts.join('\n\n').trim() }))
        .filter(({ message, text }) => message.role === 'assistant' && text !== '');
    if (candidates.length === 0)
        return undefined;
    const byTime = candidates.every(({ message }) => message.at !== undefined);
    const last = candidates.reduce((latest, candidate) => byTime && (candidate.message.at ?? 0) < (latest.message.at ?? 0) ? latest : candidate);
    return last.text;
}
const RESULT_OUTPUT_LIMIT_BYTES = 256 * 1024;
function capResult(text, limit = RESULT_OUTPUT_LIMIT_BYTES) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes <= limit)
        return { text, truncated: false, bytes };
    const note = `\n\n[Truncated: the agent's final message is ${formatDecimal(bytes, 0)} bytes; the result output keeps the first ${Math.floor(limit / 1024)} KiB. The whole message is in the session transcript.]`;
    const room = Math.max(0, limit - Buffer.byteLength(note, 'utf8'));
    return { text: cutUtf8(text, room) + note, truncated: true, bytes };
}
function cutUtf8(text, maxBytes) {
    const encoded = Buffer.from(text, 'utf8');
    let end = Math.min(maxBytes, encoded.length);
    while (end > 0 && end < encoded.length && ((encoded[end] ?? 0) & 0xc0) === 0x80)
        end -= 1;
    return encoded.subarray(0, end).toString('utf8');
}
function conversation_isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function stringOr(value, fallback) {
    return typeof value === 'string' ? value : fallback;
}
function nonEmpty(value) {
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

;// CONCATENATED MODULE: ./src/summary/json-output.ts


const JSON_OUTPUT_LIMIT_BYTES = 256 * 1024;
function jsonOutput(name, value, smaller) {
    const whole = serialise(value);
    if (typeof whole === 'string')
        return { json: whole };
    const why = `the ${name} ${whole.why}`;
    const cutForm = smaller?.();
    const json = cutForm && serialise(cutForm.value);
    if (typeof json !== 'string')
        return { note: `The ${name} output is not set: ${why}.` };
    return {
        json,
        note: `The ${name} output holds ${cutForm?.keeps}: ${why}. The step's outcome is unchanged.`,
    };
}
function leadingThatFit(items) {
    const kept = [];
    let bytes = 2;
    for (const item of items) {
        const json = serialise(item);
        if (typeof json !== 'string')
            break;
        bytes += Buffer.byteLength(json, 'utf8') + 1;
        if (bytes > JSON_OUTPUT_LIMIT_BYTES)
            break;
        kept.push(item);
    }
    return kept;
}
function setJsonOutput(io, name, output) {
    if (output.note)
        io.warning(safeForLog(output.note));
    if (output.json !== undefined)
        io.setOutput(name, output.json);
}
function serialise(value) {
    let json;
    try {
        json = JSON.stringify(value) ?? 'null';
    }
    catch (error) {
        return { why: `could not be written as JSON (${cut(errorMessage(error), 200)})` };
    }
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes <= JSON_OUTPUT_LIMIT_BYTES)
        return json;
    return { why: `is ${bytes} bytes as JSON, over the ${JSON_OUTPUT_LIMIT_BYTES}-byte limit` };
}
const KEPT_TEXT_CHARS = 2_000;
const KEPT_FIELD_BYTES = 16 * 1024;
function runOutput(run) {
    return jsonOutput('run', run, () => {
        const kept = {};
        for (const [key, value] of Object.entries(run)) {
            if (typeof value === 'string')
                kept[key] = cut(value, KEPT_TEXT_CHARS);
            else if (isSmall(value))
                kept[key] = value;
        }
        kept.truncated = true;
        const keeps = 'only its top-level fields that fit, text cut, with "truncated": true';
        if (isSmall(kept, JSON_OUTPUT_LIMIT_BYTES))
            return { value: kept, keeps };
        return {
            value: { run_id: run.run_id, state: run.state, truncated: true },
            keeps: 'only run_id and state, with "truncated": true',
        };
    });
}
function isSmall(value, limit = KEPT_FIELD_BYTES) {
    try {
        return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') <= limit;
    }
    catch {
        return false;
    }
}

;// CONCATENATED MODULE: ./src/model/outcome.ts

const OUTCOMES = [
    'succeeded',
    'failed',
    'error',
    'cancelled',
    'timed_out',
    'superseded',
    'blocked',
    'over_budget',
    'interrupted',
    'started',
    'invalid_output',
    'awaiting_approval',
];
const STOP_CAUSES = (/* unused pure expression or super */ null && ([
    'signal',
    'timeout',
    'over-budget',
    'error',
    'post',
    'pass-when',
]));
const OUTCOME_RECORDS = {
    succeeded: {
        icon: '\u2705',
        short: 'succeeded',
        passes: true,
        commitState: 'success',
        check: { conclusion: 'success', title: 'Succeeded' },
        carriesAgentWork: true,
    },
    failed: {
        icon: '\u274c',
        short: 'failed',
        passes: false,
        commitState: 'failure',
        check: { conclusion: 'failure', title: 'The run broke: the agent could not finish' },
        carriesAgentWork: true,
    },
    error: {
        icon: '\u274c',
        short: 'error',
        passes: false,
        commitState: 'error',
        check: { conclusion: 'failure', title: "The run broke: a failure on the service's side" },
        carriesAgentWork: true,
    },
    cancelled: {
        icon: '\u26d4',
        short: 'cancelled',
        passes: false,
        commitState: 'error',
        check: { conclusion: 'cancelled', title: 'The run was cancelled' },
        carriesAgentWork: true,
    },
    timed_out: {
        icon: '\u23f1\ufe0f',
        short: 'timed out',
        passes: false,
        commitState: 'failure',
        check: { conclusion: 'timed_out', title: 'The run broke: timed out' },
        carriesAgentWork: true,
    },
    superseded: {
        icon: '\u23ed\ufe0f',
        short: 'superseded',
        passes: true,
        commitState: 'success',
        check: { conclusion: 'neutral', title: 'Superseded by a newer run' },
        carriesAgentWork: true,
    },
    blocked: {
        icon: '\u270b',
        short: 'waiting for a person',
        passes: false,
        commitState: 'failure',
        check: { conclusion: 'action_required', title: 'The run waits for a person' },
        carriesAgentWork: true,
    },
    over_budget: {
        icon: '\ud83d\udcb8',
        short: 'over budget',
        passes: false,
        commitState: 'failure',
        check: { conclusion: 'failure', title: 'The run broke: over its credit cap' },
        carriesAgentWork: true,
    },
    interrupted: {
        icon: '\u26d4',
        short: 'cancelled with the workflow',
        passes: false,
        commitState: 'error',
        check: { conclusion: 'cancelled', title: 'The run was cancelled' },
        carriesAgentWork: false,
    },
    started: {
        icon: '\ud83d\ude80',
        short: 'started',
        passes: true,
        commitState: 'pending',
        check: { conclusion: 'neutral', title: 'Started; this step does not wait for it' },
        carriesAgentWork: false,
    },
    invalid_output: {
        icon: '\ud83e\udde9',
        short: 'invalid result',
        passes: false,
        commitState: 'error',
        check: { conclusion: 'failure', title: 'The run broke: its result did not validate' },
        carriesAgentWork: true,
    },
    awaiting_approval: {
        icon: '\ud83d\udd10',
        short: 'waiting for approval',
        passes: true,
        commitState: 'pending',
        check: { conclusion: 'action_required', title: "Waiting for a maintainer's approval" },
        carriesAgentWork: false,
    },
};
function outcomeOfStop(cause) {
    switch (cause) {
        case 'signal':
        case 'post':
            return 'interrupted';
        case 'timeout':
            return 'timed_out';
        case 'over-budget':
            return 'over_budget';
        case 'error':
            return 'error';
        case 'pass-when':
            return 'cancelled';
    }
}
const REVIEW_VERDICT_RECORDS = {
    approve: {
        icon: '\u2705',
        title: 'Approved',
        commitState: 'success',
        check: { conclusion: 'success', title: 'Approved by the agent' },
        says: 'approves the changes',
    },
    comment: {
        icon: '\ud83d\udcac',
        title: 'Commented',
        commitState: 'success',
        check: { conclusion: 'success', title: 'Reviewed, with comments' },
        says: 'comments on the changes',
    },
    request_changes: {
        icon: '\u274c',
        title: 'Changes requested',
        commitState: 'failure',
        check: { conclusion: 'failure', title: 'Changes requested' },
        says: 'requests changes',
    },
};
function outcomeOfState(state) {
    switch (state) {
        case 'SUCCEEDED':
            return 'succeeded';
        case 'ERROR':
            return 'error';
        case 'CANCELLED':
            return 'cancelled';
        case 'BLOCKED':
            return 'blocked';
    }
    return meaningOf(state) === 'failed' ? 'failed' : undefined;
}

;// CONCATENATED MODULE: ./src/model/spend-cap.ts

function bindingCaps(...caps) {
    const tightest = new Map();
    for (const cap of caps) {
        if (!cap)
            continue;
        const held = tightest.get(cap.amount.unit);
        if (!held || cap.amount.value < held.amount.value)
            tightest.set(cap.amount.unit, cap);
    }
    return [...tightest.values()];
}
function maxCreditsCap(maxCredits) {
    return maxCredits === undefined ? undefined : { amount: maxCredits, input: 'max_credits' };
}
function capLabel(cap) {
    if (cap.input === 'max_credits')
        return `the cap of ${formatAmount(cap.amount)}`;
    return `the ${formatAmount(cap.amount)} ${cap.input} had left`;
}
function capWords(cap) {
    if (cap.input === 'max_credits')
        return `the max_credits cap of ${formatAmount(cap.amount)}`;
    const of = cap.limit === undefined ? '' : ` (of ${formatAmount(cap.limit)})`;
    return `the ${formatAmount(cap.amount)} ${cap.input} had left when the step started${of}`;
}

;// CONCATENATED MODULE: ./src/door-words.ts
const WORKFLOW_WORDS = {
    signalled: 'the workflow is cancelling this step',
    interrupted: { reason: 'the workflow was cancelled', effect: 'which interrupted this step' },
    step: 'step',
    leftGoing: (run) => `The main step left ${run} unfinished; cancelling it.`,
    input: (name) => `Input "${name}"`,
};
const COMMAND_WORDS = {
    signalled: 'cancelling the runs this command made before it exits',
    interrupted: { reason: 'the command received a signal', effect: 'which stopped it' },
    step: 'command',
    leftGoing: (run) => `The command stopped with ${run} still going; cancelling it before it exits.`,
    input: (name) => `--${name.replace(/_/g, '-')}`,
};

;// CONCATENATED MODULE: ./src/model/run-item.ts


function run_item_statusMessageOf(run) {
    if (meaningOf(run.state) === 'succeeded')
        return undefined;
    const message = run.status_message?.message?.trim();
    return message ? message : undefined;
}
function pullRequestUrlOf(run) {
    for (const artifact of run.artifacts ?? []) {
        const url = artifact.artifact_type === 'PULL_REQUEST' ? artifact.data?.url : undefined;
        if (typeof url === 'string' && safeHttpUrl(url))
            return url;
    }
    return undefined;
}
function parseIsoDuration(text) {
    const match = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
    if (!match || text === 'P' || text === 'PT')
        return undefined;
    const [, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0));
    return Math.round((((days ?? 0) * 24 + (hours ?? 0)) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0)) * 1000);
}

;// CONCATENATED MODULE: ./src/model/ending.ts










function endingOf(outcome) {
    switch (outcome.kind) {
        case 'started':
            return { kind: 'started', run: factsOf(outcome.run), state: outcome.run.state };
        case 'finished': {
            const run = factsOf(outcome.run);
            if (outcome.supersededBy)
                return { kind: 'superseded', run, newerRunId: outcome.supersededBy };
            if (outcome.invalidOutput)
                return { kind: 'invalid-output', run, ...outcome.invalidOutput };
            return { kind: 'finished', run, state: outcome.run.state, verdict: outcome.reviewVerdict };
        }
        case 'timed-out':
            return {
                kind: 'timed-out',
                run: factsOf(outcome.run),
                timeoutMs: outcome.timeoutMs,
                stateAtTimeout: outcome.cancel.kind === 'blocked' ? 'BLOCKED' : outcome.stateAtTimeout,
                cancel: outcome.cancel,
            };
        case 'interrupted':
            return {
                kind: 'interrupted',
                run: outcome.run && factsOf(outcome.run),
                signal: outcome.signal,
                cancel: outcome.cancel,
                ...(outcome.by ? { by: outcome.by } : {}),
            };
        case 'over-budget':
            return {
                kind: 'over-budget',
                run: factsOf(outcome.run),
                used: spentWords(outcome.cost, outcome.cap.amount.unit),
                cap: capWords(outcome.cap),
                capLabel: capLabel(outcome.cap),
                cancel: outcome.cancel,
            };
        case 'stopped':
            return {
                kind: 'stopped',
                run: factsOf(outcome.run),
                cause: outcome.cause,
                cancel: outcome.cancel,
            };
        case 'blocked':
            return {
                kind: 'blocked',
                run: factsOf(outcome.run),
                onBlocked: outcome.passes ? 'pass' : 'fail',
            };
        case 'handed-over':
            return { kind: 'handed-over', run: factsOf(outcome.run), reason: outcome.reason };
    }
}
function factsOf(run) {
    const title = run.title?.trim();
    return {
        runId: run.run_id,
        name: title ? clip(title.replace(/\s+/g, ' '), 200) : `Run ${run.run_id}`,
        statusMessage: run_item_statusMessageOf(run),
    };
}
function outcomeWordOf(outcome) {
    return describeEnding(endingOf(outcome)).outcome;
}
function describeEnding(ending) {
    const { name, runId } = ending.run ?? {};
    const word = (outcome) => ({ outcome, ...OUTCOME_RECORDS[outcome] });
    switch (ending.kind) {
        case 'started':
            return {
                ...word('started'),
                label: 'Started',
                detail: "This step did not wait for the run (`wait: false`); a `reconcile` pass brings what it shows on GitHub to the run's end.",
                showsReason: false,
                why: 'The step did not wait for the run (wait: false); it goes on without this step.',
                headline: `${name} started (${ending.state}); not waiting for it`,
            };
        case 'finished':
            return ending.verdict && ending.state === 'SUCCEEDED'
                ? reviewedWords(ending.run, ending.verdict)
                : finishedWords(ending.run, ending.state);
        case 'timed-out': {
            const timeout = formatDuration(ending.timeoutMs);
            const state = STATE.test(ending.stateAtTimeout) ? ` ${ending.stateAtTimeout}` : '';
            const cancel = describeCancel(ending.run.runId, ending.cancel);
            const stateWas = ending.cancel.kind === 'blocked' ? '' : ` it was ${ending.stateAtTimeout}.`;
            return {
                ...word('timed_out'),
                label: `Timed out after ${timeout}`,
                detail: `The run was still${state} when the \`timeout\` input (${timeout}) ran out.${afterCancel(ending.cancel)}`,
                showsReason: false,
                why: `The run was still ${ending.stateAtTimeout} when the timeout input (${timeout}) ran out. ${cancel}`,
                headline: `${ending.run.name} timed out`,
                failure: `Run ${ending.run.runId} did not finish within the timeout input (${timeout});${stateWas} ${cancel}`,
            };
        }
        case 'interrupted': {
            const cancel = runId && ending.cancel ? ` ${describeCancel(runId, ending.cancel)}` : '';
            const { reason, effect } = ending.by ?? WORKFLOW_WORDS.interrupted;
            const Reason = `${reason.charAt(0).toUpperCase()}${reason.slice(1)}`;
            return {
                ...word('interrupted'),
                label: `Interrupted: ${reason}`,
                detail: `${Reason}, ${effect}; the action cancels the run with it.`,
                showsReason: false,
                why: `${Reason}, ${effect}.${cancel}`,
                headline: name ? `${name} was interrupted: ${reason}` : `Interrupted: ${reason}`,
                failure: `${Reason}${ending.signal ? ` (${ending.signal})` : ''}, ${effect}.${cancel}`,
            };
        }
        case 'blocked': {
            const passes = ending.onBlocked === 'pass';
            return {
                ...word('blocked'),
                passes,
                commitState: passes ? 'success' : 'failure',
                label: BLOCKED_LABEL,
                showsReason: false,
                why: `The run waits for a person (BLOCKED); with on_blocked: ${ending.onBlocked} the step hands it over and ${passes ? 'passes' : 'fails'}.`,
                headline: `${ending.run.name} is blocked, waiting for a person`,
                failure: passes
                    ? undefined
                    : `Run ${ending.run.runId} is BLOCKED: it waits for a person (on_blocked: fail). It stays BLOCKED until someone answers in the session.`,
            };
        }
        case 'over-budget': {
            const used = `The run used ${ending.used}, more than ${ending.cap}`;
            const cancel = describeCancel(ending.run.runId, ending.cancel);
            return {
                ...word('over_budget'),
                label: `Over budget: ${ending.used}, over ${ending.capLabel}`,
                detail: `The run used ${ending.used}, more than ${escapeMarkdown(ending.cap)}.${afterCancel(ending.cancel)}`,
                showsReason: false,
                why: `${used}. ${cancel}`,
                headline: `${ending.run.name} went over budget`,
                failure: `${used} (run ${ending.run.runId}). ${cancel}`,
            };
        }
        case 'stopped': {
            const cancel = describeCancel(ending.run.runId, ending.cancel);
            const { label, why } = STOPPED_WORDS[ending.cause];
            return {
                ...word(outcomeOfStop(ending.cause)),
                label,
                showsReason: false,
                why: `${upperFirst(why)}. ${cancel}`,
                headline: `${ending.run.name} was stopped: ${why}`,
                failure: `Run ${ending.run.runId}: ${why}. ${cancel}`,
            };
        }
        case 'superseded':
            return {
                ...word('superseded'),
                label: 'Superseded by a newer run',
                detail: 'A newer run with the same `name` replaced this one (`cancel_previous`).',
                showsReason: false,
                why: `A newer run with the same name replaced this one (cancel_previous): ${ending.newerRunId}.`,
                headline: `${ending.run.name} was superseded by run ${ending.newerRunId}`,
            };
        case 'handed-over':
            return {
                ...word('superseded'),
                label: 'Handed to a newer step',
                detail: 'A newer step for this thread steers the run now (`previous_run: steer`).',
                showsReason: false,
                why: `A newer step for this thread steers run ${ending.run.runId} now (previous_run: steer): ${ending.reason}. This step handed it over and cancelled nothing.`,
                headline: `${ending.run.name} was handed to a newer step`,
            };
        case 'invalid-output':
            return {
                ...word('invalid_output'),
                label: 'Invalid result',
                detail: `The agent's result did not validate against ${schemaNamed(ending.input, '`')}, even after the corrections asked for; the job summary names the errors.`,
                showsReason: false,
                why: `The agent's result ${describeInvalidOutput(ending)}`,
                headline: `${ending.run.name} gave a result that does not validate`,
                failure: `Run ${ending.run.runId}: the agent's result ${describeInvalidOutput(ending)}`,
            };
        case 'awaiting-approval': {
            const { pin } = ending;
            const what = pin ? pinWords(pin) : 'the head commit';
            const of = pin ? ` of ${pin.kind === 'commit' ? approval_short(pin.sha) : pin.item}` : '';
            const refused = ending.refused ? ` The approval given does not count: ${ending.refused}.` : '';
            const line = !pin
                ? ''
                : pin.kind === 'commit'
                    ? ` (a review, or a comment "${approveLine(pin.sha)}")`
                    : ` (a comment "${approveLine(pin.digest)}")`;
            const anew = pin?.kind === 'item' ? 'an edit of it' : 'a newer push';
            return {
                ...word('awaiting_approval'),
                label: `Waiting for approval${of}`,
                detail: `${upperFirst(ending.why)}: the run starts only once someone with at least ${ending.approverPermission} permission on the repository approves ${pin?.kind === 'commit' ? 'this commit' : pin ? escapeMarkdown(pin.item) : 'the head commit'}.${refused ? escapeMarkdown(refused) : ''}`,
                showsReason: false,
                why: `No run was created: ${plainWords(ending.why)}. It starts once someone with at least ${ending.approverPermission} permission approves ${what}${line}; ${anew} needs a new approval.${refused}`,
                headline: `Waiting for approval${of}: no run was created`,
            };
        }
    }
}
const STOPPED_WORDS = {
    'pass-when': {
        label: 'Cancelled: its set could no longer pass',
        why: 'its set could no longer pass (pass_when), so the step stopped it',
    },
    error: { label: 'Stopped by an error', why: 'an error ended the step, which stopped it' },
};
function upperFirst(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}
function plainWords(markdown) {
    return markdown.replaceAll('`', '');
}
function reviewedWords(run, verdict) {
    const record = REVIEW_VERDICT_RECORDS[verdict];
    return {
        ...OUTCOME_RECORDS.succeeded,
        outcome: 'succeeded',
        icon: record.icon,
        commitState: record.commitState,
        check: record.check,
        label: record.title,
        showsReason: false,
        why: `The run succeeded; the agent's review ${record.says}.`,
        headline: `${record.title}: ${run.name}`,
    };
}
function finishedWords(run, state) {
    const outcome = outcomeOfState(state) ?? 'failed';
    const record = { outcome, ...OUTCOME_RECORDS[outcome] };
    const failure = `Run ${run.runId} ended ${state}${run.statusMessage ? `: ${run.statusMessage}` : ' (the service gave no status message)'}`;
    const reasonless = (why) => run.statusMessage ? why : `${why.replace(/\.$/, '')}; the service gave no status message.`;
    switch (state) {
        case 'SUCCEEDED':
            return {
                ...record,
                label: 'Succeeded',
                showsReason: false,
                why: 'The agent finished its task.',
                headline: `${run.name} succeeded`,
            };
        case 'FAILED':
            return {
                ...record,
                label: 'Failed',
                showsReason: true,
                why: reasonless('The agent could not finish its task.'),
                headline: `${run.name} failed`,
                failure,
            };
        case 'ERROR':
            return {
                ...record,
                label: "Error on the service's side",
                showsReason: true,
                why: reasonless("A failure on the service's side stopped the run."),
                headline: `${run.name} ended in an error on the service's side`,
                failure,
            };
        case 'CANCELLED':
            return {
                ...record,
                label: 'Cancelled elsewhere',
                detail: 'Someone cancelled the run outside this step (in the app, or through the API).',
                showsReason: true,
                why: reasonless('The run was cancelled outside this step (in the app, or through the API).'),
                headline: `${run.name} was cancelled elsewhere`,
                failure,
            };
        default:
            return {
                ...record,
                commitState: 'error',
                label: 'Did not succeed',
                showsReason: true,
                why: reasonless(`The run ended ${state}.`),
                headline: `${run.name} ended ${state}`,
                failure,
            };
    }
}
function afterCancel(cancel) {
    switch (cancel.kind) {
        case 'cancelled':
            return ' The action cancelled it.';
        case 'already-finished':
            return ' It had finished meanwhile.';
        case 'blocked':
            return ' It waits for a person (BLOCKED), and a run cannot be cancelled while it waits: it stays BLOCKED until someone answers.';
        case 'refused':
        case 'not-cancellable':
        case 'failed':
            return ' The action could not cancel it: check it in the session.';
    }
}
const BLOCKED_LABEL = 'Blocked: waiting for a person';
const STATE = /^[A-Z_]{1,40}$/;
function failureNotes(statusMessage, now) {
    if (typeof statusMessage !== 'object' || statusMessage === null)
        return [];
    const { session_debug_until: until, retryable } = statusMessage;
    const notes = [];
    const untilMs = typeof until === 'string' ? Date.parse(until) : NaN;
    if (Number.isFinite(untilMs) && untilMs > now) {
        notes.push(`The session stays open for debugging until ${new Date(untilMs).toISOString().replace('.000Z', 'Z')}.`);
    }
    if (retryable === true)
        notes.push('A platform failure; a re-run may succeed.');
    return notes;
}
function describeInvalidOutput(ending) {
    const after = ending.corrections === 0
        ? ''
        : ` after ${ending.corrections} correction${ending.corrections === 1 ? '' : 's'}`;
    return `did not validate against ${schemaNamed(ending.input)}${after}: ${ending.errors.slice(0, 3).join('; ')}.`;
}
function schemaNamed(input, quote = '') {
    return input === 'output_schema'
        ? `${quote}output_schema${quote}`
        : `the review's schema (${quote}pull_request_review${quote})`;
}
function spentWords(cost, unit) {
    const spent = costIn(cost, unit);
    if (spent !== undefined)
        return formatAmount({ value: spent, unit });
    const other = otherUnit(unit);
    const reported = formatAmount({ value: costIn(cost, other) ?? 0, unit: other });
    return `${reported} and no figure in ${unitName(unit)}`;
}

;// CONCATENATED MODULE: ./src/summary/agent-work.ts


const SUMMARY_ANSWER_CHARS = 200_000;
function renderAnswerBlock(answer, label = "The agent's answer") {
    if (answer === undefined || answer.trim() === '')
        return undefined;
    return agentDetails(label, clipAnswer(answer, SUMMARY_ANSWER_CHARS), true);
}
const ICONS = {
    PULL_REQUEST: '\ud83d\udd00',
    FILE: '\ud83d\udcc4',
    SCREENSHOT: '\ud83d\uddbc\ufe0f',
    PLAN: '\ud83d\udcdd',
};
function renderArtifacts(artifacts, downloadedTo, downloadDir) {
    if (artifacts.length === 0)
        return undefined;
    const lines = ['**Artifacts**', ''];
    for (const artifact of artifacts.slice(0, 200)) {
        const icon = ICONS[artifact.type] ?? '\ud83d\udce6';
        const label = escapeMarkdown(clip(artifact.filepath ?? artifact.name ?? artifact.type, 300));
        const url = safeHttpUrl(artifact.url);
        const named = url ? `[${label}](${url})` : label;
        const path = downloadedTo.get(artifact);
        const where = path ? ` \u2192 <code>${escapeMarkdown(path)}</code>` : '';
        lines.push(`- ${icon} ${escapeMarkdown(artifact.type)}: ${named}${where}`);
    }
    if (artifacts.length > 200)
        lines.push(`- \u2026 and ${artifacts.length - 200} more`);
    if (downloadDir && downloadedTo.size > 0) {
        lines.push('', `Downloaded files are in <code>${escapeMarkdown(downloadDir)}</code>.`);
    }
    return lines.join('\n');
}
function renderBlocked(question, answerWays) {
    const link = safeHttpUrl(answerWays.sessionLink);
    const ways = [link ? `answer in the [session](${link})` : 'answer in the session, in the app'];
    if (answerWays.continueRun)
        ways.push('reply with a comment here; continue_run passes it on');
    const lines = [
        '> [!WARNING]',
        `> The run is BLOCKED: it waits for a person. To move it on, ${ways.join(', or ')}.`,
        '',
    ];
    if (question)
        lines.push(agentDetails('What it waits for', clip(question, 20_000), true), '');
    return lines.join('\n');
}

;// CONCATENATED MODULE: ./src/summary/summary.ts












function verdictOf(outcome) {
    return describeEnding(endingOf(outcome));
}
function usageOf(run) {
    const entries = Object.entries(run.request_usage ?? {}).filter(([, value]) => typeof value === 'number' || (typeof value === 'string' && value.length <= 64));
    if (entries.length === 0)
        return undefined;
    return entries.map(([key, value]) => `${key.replace(/_/g, ' ')}: ${String(value)}`).join(', ');
}
function renderSummary(outcome, extras = {}) {
    const verdict = verdictOf(outcome);
    const run = outcome.run;
    const rows = [];
    if (run) {
        rows.push(['Run', `<code>${escapeMarkdown(run.run_id)}</code>`]);
        const state = run.state.toLowerCase() === verdict.outcome
            ? ''
            : ` (state <code>${escapeMarkdown(run.state)}</code>)`;
        rows.push(['Outcome', `<code>${verdict.outcome}</code>${state}`]);
        const duration = durationOf(outcome);
        if (duration)
            rows.push(['Duration', duration]);
        const link = safeHttpUrl(run.session_link);
        if (link)
            rows.push(['Session', `[Open the session transcript](${link})`]);
        const pullRequest = safeHttpUrl(pullRequestUrlOf(run));
        if (pullRequest) {
            rows.push([
                'Pull request',
                `[${escapeMarkdown(pullRequestLabel(pullRequest))}](${pullRequest})`,
            ]);
        }
        const cost = describeCost(treeCostOf(run, outcome.children));
        const usage = cost ?? usageOf(run);
        if (usage)
            rows.push([cost ? 'Cost' : 'Usage', escapeMarkdown(usage)]);
        const message = run_item_statusMessageOf(run);
        if (message && !verdict.passes) {
            rows.push(['Status message', inlineText(clip(message, 2000))]);
        }
    }
    const lines = [
        `### ${verdict.icon} ${escapeMarkdown(verdict.headline)}`,
        '',
        escapeMarkdown(verdict.why),
        '',
    ];
    if (rows.length > 0)
        lines.push(...factsTable(rows), '');
    const started = childRunsBlock(outcome.children);
    if (started)
        lines.push(started, '');
    if (run && meaningOf(run.state) === 'failed') {
        const notes = failureNotes(run.status_message, extras.now ?? Date.now());
        if (notes.length > 0)
            lines.push(notes.map(escapeMarkdown).join(' '), '');
    }
    if (run && meaningOf(run.state) === 'blocked') {
        const asked = outcome.kind === 'blocked'
            ? outcome.question
            : (extras.blockedQuestion ?? blockedQuestion(run.status_message, undefined));
        const question = asked?.trim() === extras.answer?.trim() ? undefined : asked;
        lines.push(renderBlocked(question, {
            sessionLink: run.session_link,
            continueRun: extras.continueRun ?? false,
        }));
    }
    else if (outcome.kind === 'timed-out' && meaningOf(outcome.stateAtTimeout) === 'blocked') {
        lines.push('> [!WARNING]', '> The run was BLOCKED, waiting for a person, when the timeout ran out.', '');
    }
    const answer = extras.shownAnswer === undefined
        ? renderAnswerBlock(extras.answer)
        : renderAnswerBlock(extras.shownAnswer, "The agent's review");
    if (answer)
        lines.push(answer, '');
    const artifacts = extras.artifacts &&
        renderArtifacts(extras.artifacts, extras.downloadedTo ?? new Map(), extras.downloadDir);
    if (artifacts)
        lines.push(artifacts, '');
    return lines.join('\n');
}
function renderErrorSummary(message, runId, step = 'step') {
    const lines = [`### ${OUTCOME_RECORDS.error.icon} The ${step} failed`, ''];
    if (runId)
        lines.push(...factsTable([['Run', `<code>${escapeMarkdown(runId)}</code>`]]), '');
    lines.push(escapeMarkdown(message), '');
    return lines.join('\n');
}
function renderAwaitingSummary(ending) {
    const words = describeEnding(ending);
    const lines = [`### ${words.icon} ${escapeMarkdown(words.headline)}`, '', words.detail ?? '', ''];
    const { pin } = ending;
    if (pin && !ending.refused) {
        const commit = pin.kind === 'commit';
        lines.push(commit
            ? 'To approve this commit, comment on the pull request:'
            : `To approve ${escapeMarkdown(pin.item)} as it reads now, comment on the issue:`, '', '```', approveLine(pinValue(pin)), '```', '', ...(commit
            ? [
                "or approve the pull request in a review of this commit, then re-run the waiting job (a review's own workflow run starts it only where the workflow runs on `pull_request_review` with the key: never on a fork's pull request).",
                '',
            ]
            : []));
    }
    return lines.join('\n');
}
function factsTable(rows) {
    const [first, ...rest] = rows;
    if (!first)
        return [];
    return [
        `| **${first[0]}** | ${first[1]} |`,
        '|---|---|',
        ...rest.map(([field, value]) => `| **${field}** | ${value} |`),
    ];
}
function durationOf(outcome) {
    const fromService = outcome.run?.run_time ? parseIsoDuration(outcome.run.run_time) : undefined;
    if (fromService !== undefined)
        return formatDuration(fromService);
    if (outcome.kind === 'finished' || outcome.kind === 'timed-out')
        return formatDuration(outcome.elapsedMs);
    return undefined;
}
function pullRequestLabel(url) {
    const match = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(url);
    return match ? `${match[1]}#${match[2]}` : url;
}

;// CONCATENATED MODULE: ./src/summary/publish.ts














async function publishOutcome(io, outcome, extras = {}) {
    const { run } = outcome;
    const link = safeHttpUrl(run?.session_link);
    const verdict = verdictOf(outcome);
    io.setOutput('outcome', verdict.outcome);
    if (run) {
        io.setOutput('state', run.state);
        if (link)
            io.setOutput('session_link', run.session_link ?? link);
        const message = run_item_statusMessageOf(run);
        if (message)
            io.setOutput('status_message', message);
        const pullRequest = pullRequestUrlOf(run);
        if (pullRequest)
            io.setOutput('pull_request_url', pullRequest);
        setJsonOutput(io, 'run', runOutput(run));
        const cost = treeCostOf(run, outcome.children);
        if (cost.credits !== undefined)
            io.setOutput('credits', formatNumberOutput(cost.credits));
        if (cost.usd !== undefined)
            io.setOutput('cost_usd', formatNumberOutput(cost.usd));
        const artifacts = extras.artifacts ?? parseArtifacts(run.artifacts);
        const items = artifactsOutput(artifacts, extras.downloadedTo);
        setJsonOutput(io, 'artifacts', jsonOutput('artifacts', items, () => {
            const first = leadingThatFit(items);
            return { value: first, keeps: `the first ${first.length} of ${items.length} artifacts` };
        }));
    }
    if (extras.answer !== undefined) {
        const result = capResult(extras.answer);
        if (result.truncated) {
            io.warning(`The agent's final message is ${result.bytes} bytes; the result output keeps the first 256 KiB.`);
        }
        io.setOutput('result', result.text);
    }
    if (extras.structuredOutput !== undefined) {
        setJsonOutput(io, 'structured_output', jsonOutput('structured_output', extras.structuredOutput));
    }
    if (extras.verdict)
        io.setOutput('verdict', extras.verdict);
    await writeSummary(io, renderSummary(outcome, extras));
    if (verdict.failure) {
        io.setFailed(safeForLog(verdict.failure));
    }
    else if (link || verdict.outcome === 'superseded') {
        const session = link ? ` Session transcript: ${link}` : '';
        io.notice(`${safeForLog(verdict.headline)}.${session}`, { title: 'Cloud agent run' });
    }
    else {
        io.info(`${safeForLog(verdict.headline)}.`);
    }
}
async function publishOverBudget(io, message) {
    const outcome = 'over_budget';
    io.setOutput('outcome', outcome);
    const { icon } = OUTCOME_RECORDS[outcome];
    await writeSummary(io, `### ${icon} Over budget: no run was created\n\n${escapeMarkdown(message)}\n`);
    io.setFailed(safeForLog(message));
}
async function publishAwaiting(io, ending) {
    const words = describeEnding(ending);
    io.setOutput('outcome', words.outcome);
    await writeSummary(io, renderAwaitingSummary(ending));
    io.notice(safeForLog(`${words.headline}. ${words.why}`), { title: 'Cloud agent run' });
}
async function writeSummary(io, markdown) {
    try {
        await io.appendSummary(markdown);
    }
    catch (error) {
        io.debug(`No job summary written: ${errorMessage(error)}`);
    }
}
async function runStepBody(io, body, summary) {
    try {
        return { value: await body() };
    }
    catch (error) {
        await publishError(io, error, summary?.());
        return { error };
    }
}
async function publishError(io, error, summary) {
    const message = error instanceof InputError
        ? `${io.words.input(error.input)} ${error.detail}`
        : errorMessage(error);
    if (summary) {
        io.setOutput('outcome', 'error');
        await writeSummary(io, renderErrorSummary(message, summary.runId, io.words.step));
    }
    io.setFailed(safeForLog(message));
    if (error instanceof Error && error.stack)
        io.debug(error.stack);
}

;// CONCATENATED MODULE: ./src/run/tree.ts

const tree_CHILD_PAGES = 5;
async function readChildren(client, rootId, query, options) {
    const listed = [];
    const pages = client.iterateRuns({ ancestor_run_id: rootId, ...query, limit: 100, sort_by: 'created_at', sort_order: 'asc' }, { ...options, maxPages: tree_CHILD_PAGES });
    for await (const run of pages)
        listed.push(run);
    return childrenOf(listed, rootId);
}

;// CONCATENATED MODULE: ./src/run/budget.ts








async function checkCreditBudgets(client, budgets, home, deps) {
    const deadline = deps.now() + timing/* CREDIT_BUDGET_CHECK */.PK.deadlineMs;
    const project = homeScope(home, { byThread: false });
    const ofHome = { home, deadline, log: deps.log };
    if (budgets.daily === undefined && budgets.pullRequest === undefined) {
        if (budgets.maxCredits?.unit === 'usd' && project) {
            await probeUnit(client, project, {
                ...ofHome,
                input: 'max_credits',
                budget: budgets.maxCredits,
            });
        }
        return { caps: [] };
    }
    if (!project)
        throw new Error('A credit budget needs a project to count by; none is named.');
    const caps = [];
    if (budgets.daily !== undefined) {
        const since = new Date(deps.now() - timing/* CREDIT_BUDGET_CHECK */.PK.dailyWindowMs).toISOString();
        const daily = { input: 'daily_credit_budget', budget: budgets.daily };
        const spent = await spentOf(client, project, since, { ...ofHome, ...daily });
        const window = `in the last 24 hours (since ${since.replace(/\.\d+Z$/, 'Z')})`;
        const runs = `the runs this action started for ${home.project} ${window}`;
        const reached = judge('daily_credit_budget', budgets.daily, spent, runs, deps.log);
        if (reached)
            return { reached, caps };
        caps.push(leftOf('daily_credit_budget', budgets.daily, spent));
    }
    if (budgets.pullRequest !== undefined) {
        if (home.change === undefined) {
            deps.log.info('pr_credit_budget: this step is about no pull or merge request; it does not apply.');
            return { caps };
        }
        const counted = { input: 'pr_credit_budget', budget: budgets.pullRequest };
        const tags = { ...project, [HANDOFF_KEYS.thread]: String(home.change) };
        const onThread = await spentOf(client, tags, undefined, { ...ofHome, ...counted });
        const spent = await withRunThatMade(client, onThread, { home, deadline, ...counted });
        const where = `${changeName(home, home.change)} of ${home.project}`;
        const runs = `the runs this action started for ${where} (all of them, whenever they ran)`;
        const reached = judge('pr_credit_budget', budgets.pullRequest, spent, runs, deps.log);
        if (reached)
            return { reached, caps };
        caps.push(leftOf('pr_credit_budget', budgets.pullRequest, spent));
    }
    return { caps };
}
function leftOf(input, limit, spent) {
    return {
        amount: { value: Math.max(0, limit.value - spent.value), unit: limit.unit },
        input,
        limit,
    };
}
const UNIT_PROBE_RUNS = 20;
async function probeUnit(client, tags, { home, deadline, input, budget }) {
    const listed = await listTaggedRuns(client, tags, { limit: UNIT_PROBE_RUNS }, {
        maxPages: 1,
        deadline,
    });
    sumIn(listed.runs.filter((run) => ofHomeForge(run, home)), { input, budget });
}
function judge(input, budget, spent, runs, log) {
    const sum = formatAmount({ value: spent.value, unit: budget.unit });
    const used = `${spent.complete ? '' : 'at least '}${sum}`;
    log.info(`${input}: ${runs} used ${used} of ${formatAmount(budget)}.`);
    if (spent.value >= budget.value) {
        const why = `${runs} used ${used}, which has reached the ${input} of ${formatAmount(budget)}`;
        return { input, why, message: `Over budget: ${why}. No run was created.` };
    }
    if (!spent.complete) {
        throw new Error(`${input} cannot be checked: the list of ${runs} is longer than the ${timing/* CREDIT_BUDGET_CHECK */.PK.maxPages} pages the check reads, and the ${spent.runs.toLocaleString('en-US')} runs on them used ${sum}, under the budget of ${formatAmount(budget)}; the rest cannot be added up, so the check refuses rather than under-count. No run was created.`);
    }
    return undefined;
}
function refuseUnpriced(input, budget, run) {
    const cost = costOf(run.request_usage);
    const reported = otherUnit(budget.unit);
    const figure = formatAmount({ value: costIn(cost, reported) ?? 0, unit: reported });
    const example = reported === 'usd' ? '$5 or 5 USD' : '500 or 500 credits';
    throw new Error(`${input} is in ${unitName(budget.unit)} (${amountInput(budget)}), and run ${run.run_id} reports what it spent only in ${unitName(reported)} (${figure}): this account is billed in ${unitName(reported)}, and the run cannot be counted as free. Write ${input} in ${unitName(reported)}, such as ${example}. No run was created.`);
}
async function withRunThatMade(client, spent, { home, deadline, ...counted }) {
    const made = await lookUpRunThatMade(client, home, deadline);
    if (!made || spent.runIds.has(made.run_id))
        return spent;
    const children = await readChildren(client, made.run_id, {}, { deadline });
    const value = sumIn([made, ...children], counted);
    return { ...spent, value: spent.value + value, runs: spent.runs + 1 };
}
function sumIn(runs, { input, budget }) {
    let sum = 0;
    for (const run of runs) {
        const cost = costOf(run.request_usage);
        if (isUnpriced(cost, budget.unit))
            refuseUnpriced(input, budget, run);
        sum += costIn(cost, budget.unit) ?? 0;
    }
    return sum;
}
async function spentOf(client, tags, since, { home, deadline, log, ...counted }) {
    const listed = await listTaggedRuns(client, tags, since ? { created_after: since } : {}, {
        maxPages: timing/* CREDIT_BUDGET_CHECK */.PK.maxPages,
        deadline,
    });
    if (listed.filteredHere) {
        log.info(`The service cannot filter runs by metadata on this plan (feature_not_available): listed the runs by time and added up those tagged ${Object.entries(tags)
            .map(([key, value]) => `${key}=${value}`)
            .join(', ')} here.`);
    }
    const runs = listed.runs.filter((run) => ofHomeForge(run, home));
    const children = listed.children.filter((run) => ofHomeForge(run, home));
    return {
        value: sumIn([...runs, ...children], counted),
        runs: runs.length,
        complete: listed.complete,
        runIds: new Set(runs.map((run) => run.run_id)),
    };
}

;// CONCATENATED MODULE: ./src/run/interruption.ts




class Interruption {
    #controller = new AbortController();
    #deps;
    #guarded;
    #newerStep;
    #handedOver;
    #cancelling;
    #stopListening = () => undefined;
    constructor(deps) {
        this.#deps = deps;
    }
    get signal() {
        return this.#controller.signal;
    }
    get interrupted() {
        return this.#deps.words.interrupted;
    }
    get cancelling() {
        return this.#cancelling !== undefined;
    }
    listen() {
        this.#stopListening = this.#deps.onSignal((signal) => {
            if (this.#cancelling) {
                this.#deps.log.info(`Received ${signal} again; still cancelling.`);
                return;
            }
            this.#controller.abort();
            this.#cancelling = this.#cancelOnSignal(signal);
        });
    }
    handsOverWhen(newerStep) {
        this.#newerStep = newerStep;
    }
    get handedOver() {
        return this.#handedOver;
    }
    guard(stoppable) {
        this.#guarded = stoppable;
    }
    stopListening() {
        this.#stopListening();
    }
    async settled() {
        return this.#cancelling;
    }
    async #cancelOnSignal(signal) {
        const why = { kind: 'signal', signal };
        const deadline = cancelDeadline(why, Date.now());
        const exitIn = deadline - Date.now() + timing/* SIGNAL_CANCEL */.EJ.exitMarginMs;
        setTimeout(() => this.#deps.exit(1), exitIn).unref();
        this.#deps.log.info(`Received ${signal}: ${this.#deps.words.signalled}.`);
        const decideBy = Date.now() + (deadline - Date.now()) * timing/* SIGNAL_CANCEL */.EJ.decideShare;
        const newer = await this.#newerStep?.(decideBy).catch((error) => {
            this.#deps.log.warning(`Could not tell whether a newer step for this thread has started (${safeForLog(errorMessage(error))}); cancelling the run, as for any cancelled step.`);
            return undefined;
        });
        if (newer) {
            this.#handedOver = newer;
            this.#deps.log.info(`A newer step for this thread steers the run now (${newer}); handing it over, not cancelling it.`);
            this.#guarded?.handOver();
            return signal;
        }
        await this.#guarded?.cancelInFlight(why, deadline);
        return signal;
    }
}

;// CONCATENATED MODULE: ./src/run/tracker.ts
class RunTracker {
    #save;
    #onKnown;
    #invocation;
    #runId;
    #settled = false;
    #pending;
    #awaitingNewPass = false;
    #decided = Promise.resolve();
    #decide = () => undefined;
    constructor(save, onKnown = () => undefined) {
        this.#save = save;
        this.#onKnown = onKnown;
    }
    get saved() {
        if (this.#invocation === undefined && this.#runId === undefined)
            return undefined;
        return {
            ...(this.#invocation !== undefined ? { invocation: this.#invocation } : {}),
            ...(this.#runId !== undefined ? { runId: this.#runId } : {}),
            ...(this.#settled ? { settled: true } : {}),
            ...(this.#awaitingNewPass ? { awaitingNewPass: true } : {}),
        };
    }
    get runId() {
        return this.#runId;
    }
    get needsCancel() {
        return this.#runId !== undefined && !this.#settled;
    }
    get mayHaveUnseenRun() {
        return this.#pending === 'create';
    }
    get awaitingNewPass() {
        return this.#awaitingNewPass;
    }
    creating(invocation) {
        this.#settled = false;
        this.#awaitingNewPass = false;
        this.#invocation = invocation;
        this.#save();
        this.#expect('create');
    }
    noRunMade() {
        this.#resolvePending();
    }
    followingUp(runId) {
        this.#awaitingNewPass = true;
        this.#remember(runId);
        this.#save();
        this.#expect('followup');
    }
    followupRefused() {
        this.settle();
        this.#resolvePending();
    }
    newPassSeen() {
        if (!this.#awaitingNewPass)
            return;
        this.#awaitingNewPass = false;
        this.#save();
    }
    track(runId) {
        this.#remember(runId);
        this.#resolvePending();
    }
    keepOwn(runId) {
        this.#settled = false;
        this.#awaitingNewPass = false;
        this.#remember(runId);
        this.#save();
    }
    settle() {
        if (this.#settled)
            return;
        this.#settled = true;
        this.#save();
    }
    async whenDecided(ms) {
        if (this.#pending === undefined)
            return this.#runId;
        let timer;
        const timeout = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
        try {
            await Promise.race([this.#decided, timeout]);
        }
        finally {
            clearTimeout(timer);
        }
        return this.#runId;
    }
    get deciding() {
        return this.#pending !== undefined;
    }
    #remember(runId) {
        if (this.#runId === runId)
            return;
        this.#runId = runId;
        this.#save();
        this.#onKnown(runId);
    }
    #expect(pending) {
        this.#pending = pending;
        this.#decided = new Promise((resolve) => (this.#decide = resolve));
    }
    #resolvePending() {
        this.#pending = undefined;
        this.#decide();
    }
}
class TrackedRuns {
    #store;
    #trackers = [];
    #savedCount = 0;
    constructor(store) {
        this.#store = store;
    }
    track(onKnown) {
        const index = this.#trackers.length;
        const tracker = new RunTracker(() => this.#save(index, tracker), onKnown);
        this.#trackers.push(tracker);
        return tracker;
    }
    #save(index, tracker) {
        const record = tracker.saved;
        if (!record)
            return;
        if (index >= this.#savedCount) {
            this.#savedCount = this.#trackers.length;
            this.#store.saveRunCount(this.#savedCount);
        }
        this.#store.saveRun(index, record);
    }
}

;// CONCATENATED MODULE: ./src/state.ts
const KEYS = {
    runs: 'runs_count',
    ofSet: 'runs_of_set',
    commentId: 'comment_id',
    statusSha: 'status_sha',
    checkRunId: 'check_run_id',
    checkRunLookup: 'check_run_lookup',
    checkRunReport: 'check_run_report',
    checkRunDone: 'check_run_done',
    setComment: 'set_comment',
};
function checkRunLeft(saved) {
    return !saved.checkRunDone && (saved.checkRunId !== undefined || !!saved.checkRunLookup);
}
function savedState(io) {
    return {
        saveCommentId: (commentId) => io.saveState(KEYS.commentId, String(commentId)),
        saveStatusSha: (sha) => io.saveState(KEYS.statusSha, sha),
        saveCheckRunLookup: (lookup) => io.saveState(KEYS.checkRunLookup, lookup ? JSON.stringify(lookup) : ''),
        saveCheckRunId: (id) => io.saveState(KEYS.checkRunId, String(id)),
        saveCheckRunReport: (report) => io.saveState(KEYS.checkRunReport, JSON.stringify(report)),
        markCheckRunDone: () => io.saveState(KEYS.checkRunDone, 'true'),
        saveRunCount: (count) => io.saveState(KEYS.runs, String(count)),
        saveRun: (index, record) => io.saveState(runKey(index), JSON.stringify(record)),
        markSet: () => io.saveState(KEYS.ofSet, 'true'),
        saveSetComment: (record) => io.saveState(KEYS.setComment, JSON.stringify(record)),
    };
}
function readSavedRun(io) {
    return {
        runs: readRuns(io),
        ofSet: io.getState(KEYS.ofSet) === 'true',
        commentId: Number(io.getState(KEYS.commentId)) || undefined,
        statusSha: io.getState(KEYS.statusSha) || undefined,
        checkRunId: Number(io.getState(KEYS.checkRunId)) || undefined,
        checkRunLookup: readCheckRunLookup(io.getState(KEYS.checkRunLookup)),
        checkRunReport: readCheckReport(io.getState(KEYS.checkRunReport)),
        checkRunDone: io.getState(KEYS.checkRunDone) === 'true',
        setComment: readSetComment(io.getState(KEYS.setComment)),
    };
}
function readCheckRunLookup(saved) {
    const { sha, externalId } = parseRecord(saved);
    return typeof sha === 'string' && typeof externalId === 'string' ? { sha, externalId } : undefined;
}
function readCheckReport(saved) {
    const { conclusion, title, summary } = parseRecord(saved);
    return typeof conclusion === 'string' && typeof title === 'string' && typeof summary === 'string'
        ? { conclusion, title, summary }
        : undefined;
}
function parseRecord(saved) {
    try {
        const record = saved ? JSON.parse(saved) : {};
        return typeof record === 'object' && record !== null ? record : {};
    }
    catch {
        return {};
    }
}
function readSetComment(saved) {
    try {
        const { commentId, set } = (saved ? JSON.parse(saved) : {});
        return Number.isSafeInteger(commentId) && typeof set === 'string'
            ? { commentId: commentId, set }
            : undefined;
    }
    catch {
        return undefined;
    }
}
function runKey(index) {
    return `runs_${index}`;
}
const MAX_SAVED_RUNS = 100_000;
function readRuns(io) {
    const count = Math.min(Number(io.getState(KEYS.runs)) || 0, MAX_SAVED_RUNS);
    const records = [];
    for (let index = 0; index < count; index += 1) {
        const record = readRecord(io.getState(runKey(index)));
        if (record)
            records.push(record);
    }
    return records;
}
function readRecord(saved) {
    let record;
    try {
        record = saved ? JSON.parse(saved) : undefined;
    }
    catch {
        return undefined;
    }
    if (typeof record !== 'object' || record === null)
        return undefined;
    const { invocation, runId, settled, awaitingNewPass } = record;
    if (typeof invocation !== 'string' && typeof runId !== 'string')
        return undefined;
    return {
        ...(typeof invocation === 'string' ? { invocation } : {}),
        ...(typeof runId === 'string' ? { runId } : {}),
        ...(settled === true ? { settled } : {}),
        ...(awaitingNewPass === true ? { awaitingNewPass } : {}),
    };
}

;// CONCATENATED MODULE: ./src/model/limits.ts
const LIMITS_KEY = 'gh_limits';
function limitsTag(limits) {
    const parts = [
        ...(limits.deadline ? [`deadline=${limits.deadline}`] : []),
        ...(limits.cap !== undefined ? [`cap=${limits.cap}`] : []),
        ...(limits.capUsd !== undefined ? [`cap_usd=${limits.capUsd}`] : []),
    ];
    return parts.length > 0 ? { [LIMITS_KEY]: parts.join(';') } : {};
}
function readLimits(metadata) {
    const text = typeof metadata === 'object' && metadata !== null
        ? metadata[LIMITS_KEY]
        : undefined;
    if (typeof text !== 'string')
        return {};
    let deadline;
    let cap;
    let capUsd;
    for (const part of text.split(';')) {
        const [name, value = ''] = part.split('=', 2);
        const number = /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
        if (name === 'deadline' && Number.isFinite(Date.parse(value)))
            deadline = value;
        if (name === 'cap' && number !== undefined)
            cap = number;
        if (name === 'cap_usd' && number !== undefined)
            capUsd = number;
    }
    return {
        ...(deadline ? { deadline } : {}),
        ...(cap !== undefined ? { cap } : {}),
        ...(capUsd !== undefined ? { capUsd } : {}),
    };
}
function cancelledEnding(run, cost) {
    const { deadline, cap, capUsd } = readLimits(run.metadata);
    const ended = Date.parse(run.updated_at ?? '');
    if (deadline && Number.isFinite(ended) && ended >= Date.parse(deadline))
        return 'timed_out';
    if (cap !== undefined && (cost.credits ?? 0) >= cap)
        return 'over_budget';
    if (capUsd !== undefined &&
        (cost.usd === undefined ? (cost.credits ?? 0) > 0 : cost.usd >= capUsd)) {
        return 'over_budget';
    }
    return 'cancelled';
}

;// CONCATENATED MODULE: ./src/agent/sources.ts

function agentWorkSources(client) {
    return {
        getConversation: (runId, signal, deadline) => client.getConversation(runId, { ...timing/* CONVERSATION_READ */.xH, signal, deadline }),
        fetchFile: async (artifact, signal) => {
            const answer = await client.getArtifact(artifact.artifactUid ?? '', { signal });
            const url = downloadUrlOf(answer);
            if (!url)
                throw new Error('the service gave no download URL for it');
            const { body } = await client.downloadSignedUrl(url, { signal });
            return body;
        },
    };
}
function downloadUrlOf(answer) {
    if (typeof answer !== 'object' || answer === null)
        return undefined;
    const data = answer.data;
    if (typeof data !== 'object' || data === null)
        return undefined;
    const url = data.download_url;
    return typeof url === 'string' && url !== '' ? url : undefined;
}

;// CONCATENATED MODULE: external "node:crypto"
const external_node_crypto_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:crypto");
;// CONCATENATED MODULE: ./src/github/own-comments.ts


class OwnComments {
    #octokit;
    #thread;
    #identity;
    constructor(octokit, thread) {
        this.#octokit = octokit;
        this.#thread = thread;
    }
    me() {
        this.#identity ??= tokenIdentity(this.#octokit).catch((error) => {
            this.#identity = undefined;
            throw error;
        });
        return this.#identity;
    }
    async list() {
        const me = await this.me();
        const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, {
            owner: this.#thread.owner,
            repo: this.#thread.repo,
            issue_number: this.#thread.issueNumber,
            per_page: 100,
            ...withDeadline(),
        });
        return comments.filter((comment) => comment.user?.login === me);
    }
    async read(commentId) {
        try {
            const { data } = await this.#octokit.rest.issues.getComment({
                owner: this.#thread.owner,
                repo: this.#thread.repo,
                comment_id: commentId,
                ...withDeadline(),
            });
            return { body: data.body, user: data.user, me: await this.me() };
        }
        catch (error) {
            if (error.status === 404)
                return undefined;
            throw error;
        }
    }
    async create(body) {
        const { data } = await this.#octokit.rest.issues.createComment({
            owner: this.#thread.owner,
            repo: this.#thread.repo,
            issue_number: this.#thread.issueNumber,
            body,
            ...withDeadline(),
        });
        return data.id;
    }
    async update(commentId, body) {
        await this.#octokit.rest.issues.updateComment({
            owner: this.#thread.owner,
            repo: this.#thread.repo,
            comment_id: commentId,
            body,
            ...withDeadline(),
        });
    }
    async delete(commentId) {
        await this.#octokit.rest.issues.deleteComment({
            owner: this.#thread.owner,
            repo: this.#thread.repo,
            comment_id: commentId,
            ...withDeadline(),
        });
    }
    where() {
        return `${this.#thread.owner}/${this.#thread.repo}#${this.#thread.issueNumber}`;
    }
}
function retryableRefusal(error) {
    const { status, response } = error;
    if (status === 422)
        return 0;
    if (status !== 403 && status !== 429)
        return undefined;
    const headers = response?.headers ?? {};
    const message = typeof response?.data?.message === 'string' ? response.data.message : '';
    const hint = Number(headers['retry-after']);
    const limited = status === 429 || /secondary rate limit/i.test(message) || headers['retry-after'] !== undefined;
    if (!limited)
        return undefined;
    const waitMs = Number.isFinite(hint) && hint >= 0 ? hint * 1000 : 1000;
    return waitMs <= timing/* GITHUB_LIMITS */.f_.maxRetryAfterMs ? waitMs : undefined;
}

;// CONCATENATED MODULE: ./src/model/key-history.ts



const MAX_RUNS = 20;
const MAX_SETS = 20;
const MAX_HANDED_OFF = 100;
const key_history_STATE = /^[A-Z_]{1,40}$/;
const key_history_SHA = /^[0-9a-f]{7,64}$/i;
function isSha(text) {
    return key_history_SHA.test(text);
}
function inertJson(value) {
    return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}
function markerJson(body, pattern) {
    const match = pattern.exec(body);
    if (!match?.[1])
        return undefined;
    let parsed;
    try {
        parsed = JSON.parse(match[1]);
    }
    catch {
        return undefined;
    }
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? parsed
        : undefined;
}
function runJson(run) {
    return {
        run_id: run.runId,
        state: run.state,
        outcome: run.outcome,
        superseded_by: run.supersededBy,
        session: run.sessionLink,
        workflow_run: run.workflowRun,
        started_at: run.startedAt,
        head: run.head,
    };
}
function setJson(record) {
    return {
        set: record.set,
        outcome: record.outcome,
        done: record.done,
        total: record.total,
        workflow_run: record.workflowRun,
        started_at: record.startedAt,
        ...(record.handedOff?.length ? { handed_off: record.handedOff.slice(0, MAX_HANDED_OFF) } : {}),
    };
}
function parseRuns(value) {
    return Array.isArray(value)
        ? value.flatMap((entry) => parseRun(entry) ?? []).slice(0, MAX_RUNS)
        : [];
}
function parseSets(value) {
    return Array.isArray(value) ? value.flatMap((entry) => parseSet(entry) ?? []) : [];
}
function parseRun(entry) {
    if (typeof entry !== 'object' || entry === null)
        return undefined;
    const record = entry;
    const { run_id: runId, state, started_at: startedAt } = record;
    if (!isRunId(runId))
        return undefined;
    if (typeof state !== 'string' || !key_history_STATE.test(state))
        return undefined;
    if (!isTime(startedAt))
        return undefined;
    return {
        runId,
        state,
        outcome: outcomeOf(record.outcome),
        supersededBy: isRunId(record.superseded_by) ? record.superseded_by : undefined,
        sessionLink: safeHttpUrl(shortText(record.session, 2048)),
        workflowRun: safeHttpUrl(shortText(record.workflow_run, 2048)),
        startedAt,
        ...(typeof record.head === 'string' && key_history_SHA.test(record.head) ? { head: record.head } : {}),
    };
}
function parseSet(entry) {
    if (typeof entry !== 'object' || entry === null)
        return undefined;
    const record = entry;
    const { set, done, total, started_at: startedAt } = record;
    if (typeof set !== 'string' || set.length > 100)
        return undefined;
    if (!Number.isSafeInteger(done) || !Number.isSafeInteger(total))
        return undefined;
    if (!isTime(startedAt))
        return undefined;
    const handedOff = Array.isArray(record.handed_off)
        ? record.handed_off.filter(isRunId).slice(0, MAX_HANDED_OFF)
        : [];
    return {
        set,
        outcome: outcomeOf(record.outcome),
        done: done,
        total: total,
        workflowRun: safeHttpUrl(shortText(record.workflow_run, 2048)),
        startedAt,
        ...(handedOff.length > 0 ? { handedOff } : {}),
    };
}
function isTime(value) {
    return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}
function outcomeOf(value) {
    return OUTCOMES.includes(value) ? value : undefined;
}
function shortText(value, max = 300) {
    return typeof value === 'string' && value.length <= max ? value : undefined;
}
function mergeRuns(runs, run) {
    return mergeNewestFirst(runs, run, (record) => record.runId, MAX_RUNS);
}
function mergeSets(sets, record) {
    return mergeNewestFirst(sets, record, (entry) => entry.set, MAX_SETS);
}
function mergeNewestFirst(records, record, idOf, max) {
    const id = idOf(record);
    const earlier = records.find((other) => idOf(other) === id)?.startedAt;
    const startedAt = earlier !== undefined && Date.parse(earlier) < Date.parse(record.startedAt)
        ? earlier
        : record.startedAt;
    return [{ ...record, startedAt }, ...records.filter((other) => idOf(other) !== id)]
        .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
        .slice(0, max);
}
function historyBlock(earlier, link = 'workflow run') {
    const { runs, sets } = earlier;
    if (runs.length + sets.length === 0)
        return undefined;
    const kinds = [runs.length > 0 ? 'runs' : '', sets.length > 0 ? 'sets' : ''];
    const title = `Earlier ${kinds.filter(Boolean).join(' and ')} (${runs.length + sets.length})`;
    const lines = [
        ...runs.map((record) => ({ at: record.startedAt, line: historyLine(record, link) })),
        ...sets.map((record) => ({ at: record.startedAt, line: setHistoryLine(record, link) })),
    ]
        .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))
        .map(({ line }) => line);
    return `<details><summary>${title}</summary>\n\n${lines.join('\n')}\n\n</details>`;
}
const HISTORY_START = '\n\n<details><summary>Earlier ';
const HISTORY_HEAD = /^<details><summary>Earlier (?:runs|sets|runs and sets) \(\d+\)<\/summary>\n/;
function withoutHistory(body) {
    if (!body.endsWith('</details>'))
        return body;
    const at = body.lastIndexOf(HISTORY_START);
    if (at < 0)
        return body;
    const head = body.slice(at + 2, at + 2 + 80);
    return HISTORY_HEAD.test(head) ? body.slice(0, at) : body;
}
function historyLine(record, link = 'workflow run') {
    const known = record.outcome ?? outcomeOfState(record.state);
    const outcome = known
        ? `${OUTCOME_RECORDS[known].icon} ${OUTCOME_RECORDS[known].short}`
        : `\u23f3 ${record.state.toLowerCase()}`;
    const newer = record.supersededBy ? ` by ${codeSpan(record.supersededBy)}` : '';
    const parts = [`- ${outcome}${newer}`, `run ${codeSpan(record.runId)}`];
    const session = safeHttpUrl(record.sessionLink);
    if (session)
        parts.push(`[session](${session})`);
    return withEnd(parts, record, link);
}
function setHistoryLine(record, link) {
    const outcome = record.outcome
        ? `${OUTCOME_RECORDS[record.outcome].icon} ${OUTCOME_RECORDS[record.outcome].short}`
        : '\u23f3 running';
    return withEnd([`- ${outcome}`, `${record.done} of ${record.total} done`], record, link);
}
function withEnd(parts, record, link) {
    const workflowRun = safeHttpUrl(record.workflowRun);
    if (workflowRun)
        parts.push(`[${link}](${workflowRun})`);
    parts.push(`started ${record.startedAt.replace(/T(\d\d:\d\d)[\s\S]*/, ' $1 UTC')}`);
    return parts.join(' \u00b7 ');
}

;// CONCATENATED MODULE: ./src/github/run-marker.ts




const MARKER = /<!-- cloud-agent-run: (\{[^<>]*\}) -->/;
function renderMarker(marker) {
    const json = inertJson({
        run_id: marker.runId,
        step: marker.step,
        key: marker.key,
        name: marker.name,
        reply: marker.reply || undefined,
        runs: marker.runs.map(runJson),
        ...(marker.sets?.length ? { sets: marker.sets.map(setJson) } : {}),
    });
    return `<!-- cloud-agent-run: ${json} -->`;
}
function withoutMarker(body) {
    return body.replace(MARKER, '');
}
function parseMarker(body) {
    const parsed = markerJson(body, MARKER);
    if (!parsed)
        return undefined;
    const runId = parsed.run_id;
    if (!isRunId(runId))
        return undefined;
    const sets = parseSets(parsed.sets);
    return {
        runId,
        step: shortText(parsed.step) ?? '',
        key: shortText(parsed.key),
        name: shortText(parsed.name),
        reply: parsed.reply === true ? true : undefined,
        runs: parseRuns(parsed.runs),
        ...(sets.length > 0 ? { sets } : {}),
    };
}
function recordOf(run, context) {
    const { ending } = context;
    return {
        ...(context.head ? { head: context.head } : {}),
        runId: run.run_id,
        state: run.state,
        outcome: ending ? describeEnding(ending).outcome : undefined,
        supersededBy: ending?.kind === 'superseded' ? ending.newerRunId : undefined,
        sessionLink: safeHttpUrl(run.session_link),
        workflowRun: context.workflowRun,
        startedAt: context.startedAt,
    };
}

;// CONCATENATED MODULE: ./src/github/answer.ts

const COMMENT_ANSWER_CHARS = 50_000;
function renderCommentAnswer(answer) {
    if (answer === undefined || answer.trim() === '')
        return undefined;
    return agentMarkdown(clipAnswer(answer, COMMENT_ANSWER_CHARS)) || undefined;
}

;// CONCATENATED MODULE: ./src/github/words.ts


function wordsFor(run, ending) {
    if (!ending)
        return wordsForState(run.state);
    const words = describeEnding(ending);
    return {
        icon: words.icon,
        label: words.label,
        detail: words.detail,
        newerRunId: ending.kind === 'superseded' ? ending.newerRunId : undefined,
        showsReason: words.showsReason,
    };
}
function wordsForState(state) {
    switch (state) {
        case 'QUEUED':
        case 'PENDING':
            return {
                icon: '\u23f3',
                label: 'Queued',
                detail: 'Waiting for an agent to pick the run up.',
                showsReason: false,
            };
        case 'SUCCEEDED':
            return { icon: '\u2705', label: 'Succeeded', showsReason: false };
        case 'FAILED':
            return { icon: '\u274c', label: 'Failed', showsReason: true };
        case 'ERROR':
            return { icon: '\u274c', label: "Error on the service's side", showsReason: true };
        case 'CANCELLED':
            return { icon: '\u26d4', label: 'Cancelled', showsReason: true };
    }
    switch (meaningOf(state)) {
        case 'blocked':
            return { icon: '\u270b', label: BLOCKED_LABEL, showsReason: false };
        case 'failed':
            return { icon: '\u274c', label: 'Did not succeed', showsReason: true };
        case 'succeeded':
            return { icon: '\u2705', label: 'Succeeded', showsReason: false };
        default:
            return {
                icon: '\u23f3',
                label: 'In progress',
                detail: 'The agent is working; follow it in the session.',
                showsReason: false,
            };
    }
}

;// CONCATENATED MODULE: ./src/github/comment.ts













function commentOutcomeOf(outcome, continueRun) {
    return {
        ending: endingOf(outcome),
        elapsedMs: 'elapsedMs' in outcome ? outcome.elapsedMs : undefined,
        question: outcome.kind === 'blocked' ? outcome.question : undefined,
        continueRun,
        ...(outcome.children?.length ? { children: outcome.children } : {}),
    };
}
const LONG_ANSWER = { chars: 1_500, lines: 25 };
function partsOf(run, history, context = {}) {
    const ending = context.outcome?.ending;
    const words = wordsFor(run, ending);
    const title = run.title?.trim();
    const name = title
        ? inlineText(clip(title.replace(/\s+/g, ' '), 200))
        : `Run ${codeSpan(run.run_id)}`;
    const figures = ending || isTerminal(run.state) ? figuresOf(run, context.outcome) : [];
    const newer = words.newerRunId ? ` (run ${codeSpan(words.newerRunId)})` : '';
    const links = [];
    const session = safeHttpUrl(run.session_link);
    if (session)
        links.push(`[Session](${session})`);
    const workflowRun = safeHttpUrl(context.workflowRun);
    if (workflowRun)
        links.push(`[Workflow run](${workflowRun})`);
    const pullRequest = pullRequestLinkOf(run);
    if (pullRequest)
        links.push(pullRequest);
    links.push(`Run ${codeSpan(run.run_id)}`);
    return {
        headline: `### ${words.icon} ${name}`,
        status: [`**${words.label}**${newer}`, ...figures].join(' \u00b7 '),
        links,
        body: context.short
            ? '_Details are in the session and the job summary._'
            : bodyOf(run, words, context),
        notes: context.short ? [] : (context.notes ?? []),
        history,
    };
}
function figuresOf(run, outcome) {
    const figures = [];
    const fromService = run.run_time ? parseIsoDuration(run.run_time) : undefined;
    const duration = fromService ?? outcome?.elapsedMs;
    if (duration !== undefined)
        figures.push(`\u23f1 ${formatDuration(duration)}`);
    const cost = describeCost(treeCostOf(run, outcome?.children));
    if (cost)
        figures.push(escapeMarkdown(cost));
    return figures;
}
function pullRequestLinkOf(run) {
    const url = pullRequestUrlOf(run);
    const href = url && linkTarget(url);
    if (!url || !href)
        return undefined;
    const match = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(url);
    const label = match ? `${match[1]}#${match[2]}` : 'the pull request';
    return `Opened ${`[${escapeMarkdown(label)}](<${href}>)`}`;
}
function bodyOf(run, words, context) {
    const parts = [];
    if (words.detail)
        parts.push(words.detail);
    const reason = words.showsReason ? run_item_statusMessageOf(run) : undefined;
    if (reason)
        parts.push(quote(inlineText(clip(reason, 2_000))));
    let answer = context.answer?.trim() ? context.answer : undefined;
    if (meaningOf(run.state) === 'blocked') {
        const question = context.outcome?.question ?? blockedQuestion(run.status_message, undefined);
        if (question?.trim() === answer?.trim())
            answer = undefined;
        parts.push(blockedBlock(question, run, context.outcome?.continueRun ?? false));
    }
    const started = childRunsBlock(context.outcome?.children);
    if (started)
        parts.push(started);
    const shown = answerBlock(answer);
    if (shown)
        parts.push(shown);
    return parts.length > 0 ? parts.join('\n\n') : undefined;
}
function blockedBlock(question, run, continueRun) {
    const session = safeHttpUrl(run.session_link);
    const ways = [
        session ? `answer in the [session](${session})` : 'answer in the session, in the app',
    ];
    if (continueRun)
        ways.push('reply with a comment here; continue_run passes it on');
    const lines = [
        '> [!WARNING]',
        `> The run is BLOCKED: it waits for a person. To move it on, ${ways.join(', or ')}.`,
    ];
    if (question)
        lines.push('', agentDetails('What it waits for', clip(question, 20_000), true));
    return lines.join('\n');
}
function answerBlock(answer) {
    if (answer === undefined)
        return undefined;
    const long = answer.length > LONG_ANSWER.chars || answer.split('\n').length > LONG_ANSWER.lines;
    if (!long)
        return renderCommentAnswer(answer);
    return agentDetails("The agent's answer", clipAnswer(answer, COMMENT_ANSWER_CHARS));
}
function quote(markdown) {
    return markdown
        .split(/<br>/)
        .map((line) => `> ${line}`)
        .join('\n');
}
function composeComment(marker, parts) {
    return fitParts(marker, parts);
}
function assemble(marker, parts) {
    const sections = [`${renderMarker(marker)}\n${parts.headline}`, parts.status];
    if (parts.links.length > 0)
        sections.push(parts.links.join(' \u00b7 '));
    if (parts.body)
        sections.push(parts.body);
    sections.push(...parts.notes);
    const history = historyBlock(parts.history);
    if (history)
        sections.push(history);
    return sections.join('\n\n');
}
function renderComment(run, marker, context = {}) {
    const runs = marker.runs.filter((record) => record.runId !== run.run_id);
    const history = { runs, sets: marker.sets ?? [] };
    const parts = partsOf(run, history, context);
    const whole = assemble(marker, parts).length;
    const { answer } = context;
    if (whole <= MAX_COMMENT_CHARS || !answer)
        return composeComment(marker, parts);
    const without = assemble(marker, partsOf(run, history, { ...context, answer: undefined })).length;
    const room = MAX_COMMENT_CHARS - without - ANSWER_CLIP_SLACK;
    const shown = Math.min(answer.length, COMMENT_ANSWER_CHARS);
    const keep = Math.floor((shown * room) / (whole - without));
    if (keep <= 0)
        return composeComment(marker, parts);
    return composeComment(marker, partsOf(run, history, { ...context, answer: clipAnswer(answer, keep) }));
}
const ANSWER_CLIP_SLACK = 500;
function spliceComment(body, marker) {
    const rest = withoutHistory(withoutMarker(body)).replace(/^\n/, '');
    const history = historyBlock({ runs: marker.runs.slice(1), sets: marker.sets ?? [] });
    const lines = `${renderMarker(marker)}\n${rest}`;
    return history ? `${lines}\n\n${history}` : lines;
}
function staleHeadNote(ranOn, head) {
    if (!isSha(ranOn) || !isSha(head) || ranOn === head)
        return undefined;
    return ('> [!NOTE]\n' +
        `> This result is for commit \`${ranOn.slice(0, 7)}\`; the pull request has since moved on to \`${head.slice(0, 7)}\`.`);
}
const MAX_COMMENT_CHARS = 65_536;
const CUT_NOTE = "\u2026\n\n_This comment was cut at GitHub's limit of 65,536 characters; the session transcript linked above has the rest._";
function fitParts(marker, parts) {
    const whole = assemble(marker, parts);
    if (whole.length <= MAX_COMMENT_CHARS)
        return whole;
    const room = MAX_COMMENT_CHARS - assemble(marker, { ...parts, body: '' }).length - CUT_NOTE.length - 40;
    const body = room > 0 ? closeDetails(`${cutEscaped(parts.body ?? '', room)}${CUT_NOTE}`) : CUT_NOTE;
    return cutEscaped(assemble(marker, { ...parts, body }), MAX_COMMENT_CHARS);
}
function closeDetails(body) {
    const open = body.split('<details').length - body.split('</details>').length;
    return open > 0 ? `${body}${'\n\n</details>'.repeat(open)}` : body;
}
function cutEscaped(text, max) {
    return text.length <= max ? text : cut(text, max).replace(/&#?\w*$/, '');
}

;// CONCATENATED MODULE: ./src/github/set-comment.ts


const SET_COMMENT_TABLE_CHARS = MAX_COMMENT_CHARS - 16_000;
const SET_MARKER = /<!-- cloud-agent-set: (\{[^<>]*\}) -->/;
function renderSetMarker(marker) {
    const json = inertJson({
        key: marker.key,
        step: marker.step,
        sets: marker.sets.map(setJson),
        ...(marker.runs?.length ? { runs: marker.runs.map(runJson) } : {}),
    });
    return `<!-- cloud-agent-set: ${json} -->`;
}
function parseSetMarker(body) {
    const parsed = markerJson(body, SET_MARKER);
    if (!parsed)
        return undefined;
    const { key, step, sets, runs } = parsed;
    if (typeof key !== 'string' || typeof step !== 'string')
        return undefined;
    const earlierRuns = parseRuns(runs);
    return {
        key,
        step,
        sets: parseSets(sets),
        ...(earlierRuns.length > 0 ? { runs: earlierRuns } : {}),
    };
}
function composeSetComment(marker, body) {
    const history = historyBlock({ runs: marker.runs ?? [], sets: marker.sets.slice(1) });
    const whole = `${renderSetMarker(marker)}\n${body}`;
    return history ? `${whole}\n\n${history}` : whole;
}
function setBodyOf(comment) {
    return withoutHistory(comment.slice(comment.indexOf('\n') + 1));
}

;// CONCATENATED MODULE: ./src/github/approval-comment.ts










const approval_comment_MARKER = /<!-- cloud-agent-approval: (\{[^<>]*\}) -->/;
const LEADING_MARKER = /^<!-- cloud-agent-approval: (\{[^<>]*\}) -->/;
const REPORT_START = /<!-- cloud-agent-(?:run|set): \{/;
function approval_comment_renderMarker(marker) {
    const json = JSON.stringify(marker);
    return `<!-- cloud-agent-approval: ${json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} -->`;
}
function splitApproval(body) {
    const leading = LEADING_MARKER.exec(body);
    if (leading) {
        const marker = markerFrom(leading[1]);
        if (!marker)
            return { rest: body };
        const after = leading[0].length;
        const start = body.slice(after).search(REPORT_START);
        const end = start < 0 ? body.length : after + start;
        const section = body.slice(0, end).trimEnd();
        const joined = section.endsWith(BELOW_THE_WAIT);
        return {
            approval: {
                marker,
                section: joined ? section.slice(0, -BELOW_THE_WAIT.length).trimEnd() : section,
            },
            rest: body.slice(end),
        };
    }
    const alone = approval_comment_MARKER.exec(body);
    if (!alone || REPORT_START.test(body))
        return { rest: body };
    const marker = markerFrom(alone[1]);
    if (!marker)
        return { rest: body };
    const text = `${body.slice(0, alone.index)}${body.slice(alone.index + alone[0].length)}`;
    return { approval: { marker, section: `${approval_comment_renderMarker(marker)}\n${text.trim()}` }, rest: '' };
}
function joinApproval(section, rest) {
    if (section === undefined)
        return rest;
    if (rest === '')
        return section;
    const waiting = markerFrom(LEADING_MARKER.exec(section)?.[1])?.approved === false;
    return waiting ? `${section}\n\n${BELOW_THE_WAIT}\n\n${rest}` : `${section}\n\n${rest}`;
}
const BELOW_THE_WAIT = "---\n\n<sub>This key's latest run or set:</sub>";
function parseApprovalMarker(body) {
    return splitApproval(body).approval?.marker;
}
function markerFrom(json) {
    if (!json)
        return undefined;
    try {
        const parsed = JSON.parse(json);
        const { key, head, prompt, approved, item } = parsed;
        if (typeof key !== 'string' || typeof head !== 'string' || typeof prompt !== 'string') {
            return undefined;
        }
        const pinned = itemOf(item);
        return { key, head, prompt, approved: approved === true, ...(pinned ? { item: pinned } : {}) };
    }
    catch {
        return undefined;
    }
}
function itemOf(value) {
    const { kind, id } = (value ?? {});
    if ((kind === 'issue' || kind === 'comment') && typeof id === 'number')
        return { kind, id };
    return undefined;
}
function promptDigest(prompt) {
    return (0,external_node_crypto_namespaceObject.createHash)('sha256').update(prompt).digest('hex').slice(0, 32);
}
function renderWaiting(words) {
    const { pin } = words.target;
    const { icon } = OUTCOME_RECORDS.awaiting_approval;
    const what = pin.kind === 'commit' ? `commit \`${approval_short(pin.sha)}\`` : escapeMarkdown(pin.item);
    const how = pin.kind === 'commit'
        ? `${reviewWords(words.fork)}\n\nAn approval counts for this commit and one run only: a newer push, or another run, needs a new approval. Bots, the pull request's author and edited comments never approve.`
        : `An approval counts for ${escapeMarkdown(pin.item)} as it reads now, and for one run only: an edit of it needs a new approval. If the workflow's prompt quotes the comment, re-run the waiting job after approving. Bots, its author and edited comments never approve.`;
    return [
        approval_comment_renderMarker(markerOf(words.key, words.target, words.prompt, false)),
        `### ${icon} Waiting for approval: no run was started`,
        '',
        `The agent's run is paid with this repository's key, and ${words.why}: it starts only once someone with at least **${words.approverPermission}** permission on the repository approves ${what}.`,
        '',
        `To approve ${pin.kind === 'commit' ? 'this commit' : 'it'}, comment exactly:`,
        '',
        '```',
        approveLine(pinValue(pin)),
        '```',
        '',
        how,
        '',
        footer(words.key, words.workflowRun),
    ].join('\n');
}
function reviewWords(fork) {
    return fork
        ? "Approving the pull request in a review of this commit counts too, but starts nothing by itself (a review's workflow run on a fork's pull request has no key): after the review, re-run this waiting job."
        : 'Approving the pull request in a review of this commit counts too; after the review, re-run this waiting job, unless the workflow also runs on `pull_request_review`, whose run then starts it.';
}
function markerOf(key, target, prompt, approved) {
    const item = target.item ? { item: target.item } : {};
    return { key, head: pinValue(target.pin), prompt, approved, ...item };
}
function renderApproved(words) {
    const { pin } = words.target;
    const what = pin.kind === 'commit' ? `commit \`${approval_short(pin.sha)}\`` : escapeMarkdown(pin.item);
    const works = pin.kind === 'commit'
        ? 'for one run, which works on that commit; a newer push, or another run, needs a new approval.'
        : 'for one run; another run needs a new approval.';
    return [
        approval_comment_renderMarker(markerOf(words.key, words.target, words.prompt, true)),
        `\ud83d\udd13 **Approved**: **${escapeMarkdown(words.login)}** approved ${what} in a ${words.via}, ${works}`,
        '',
        footer(words.key, words.workflowRun),
    ].join('\n');
}
function footer(key, workflowRun) {
    const link = safeHttpUrl(workflowRun);
    const parts = [`key ${escapeMarkdown(key)}`, ...(link ? [`[workflow run](${link})`] : [])];
    return `<sub>${parts.join(' \u00b7 ')}</sub>`;
}
class ApprovalComment {
    #comments;
    #key;
    #log;
    constructor(octokit, thread, key, log) {
        this.#comments = new OwnComments(octokit, {
            owner: thread.owner,
            repo: thread.repo,
            issueNumber: thread.number,
        });
        this.#key = key;
        this.#log = log;
    }
    async find() {
        const keyed = (await this.#comments.list())
            .filter((comment) => keyOf(comment.body ?? '') === this.#key)
            .sort((a, b) => a.id - b.id);
        const [oldest] = keyed;
        if (!oldest)
            return undefined;
        const marker = keyed
            .map((comment) => parseApprovalMarker(comment.body ?? ''))
            .find((found) => found?.key === this.#key);
        const writtenAt = latest(keyed);
        return { id: oldest.id, ...(marker ? { marker } : {}), ...(writtenAt ? { writtenAt } : {}) };
    }
    async write(section, after, known, mode = 'waiting') {
        try {
            const found = known ?? (await this.find());
            const always = mode === 'approved';
            if (found && (await this.#writeInto(found.id, section, { always, shared: false }))) {
                return true;
            }
            await this.#keepOldest(await this.#comments.create(section), section);
            return true;
        }
        catch (error) {
            this.#log.warning(`GitHub: could not write the approval in the comment on ${this.#comments.where()} (${reasonOf(error)}). ${after}`);
            return false;
        }
    }
    async #keepOldest(created, section) {
        const oldest = await this.find();
        if (!oldest || oldest.id === created)
            return;
        if (await this.#writeInto(oldest.id, section, { always: true, shared: true })) {
            await this.#comments.delete(created);
        }
    }
    async #writeInto(id, section, { always, shared }) {
        let lookUntil = 0;
        let current = await this.#comments.read(id);
        let writes = 0;
        let written;
        for (let looks = 0;; looks += 1) {
            if (!current || current.user?.login !== current.me)
                return writes > 0;
            const { approval, rest } = splitApproval(current.body ?? '');
            const shows = approval?.section === section;
            if (writes === 0 && shows && !always)
                return true;
            if (!shows || writes === 0) {
                if (writes >= MAX_WRITES)
                    return true;
                written = joinApproval(section, rest);
                await this.#comments.update(id, written);
                writes += 1;
                lookUntil = Date.now() + timing/* COMMENT_OUTLAST_MS */.Sl;
                if (!(shared || stillGoing(rest)))
                    return true;
            }
            else if (current.body !== written || !stillGoing(rest)) {
                return true;
            }
            const pause = timing/* COMMENT_RECHECK_PAUSES_MS */.t_[looks] ?? timing/* COMMENT_RECHECK_PAUSES_MS */.t_[1];
            if (Date.now() + pause > lookUntil)
                return true;
            await new Promise((resolve) => setTimeout(resolve, pause));
            current = await this.#comments.read(id);
        }
    }
}
const MAX_WRITES = 3;
function stillGoing(report) {
    const run = parseMarker(report);
    if (run)
        return run.runs.some((record) => !record.outcome && !isTerminal(record.state));
    const set = parseSetMarker(report);
    return set !== undefined && set.sets[0] !== undefined && set.sets[0].outcome === undefined;
}
function keyOf(body) {
    const approval = parseApprovalMarker(body);
    if (approval)
        return approval.key;
    const run = parseMarker(body);
    if (run)
        return run.reply ? undefined : run.key;
    return parseSetMarker(body)?.key;
}
function latest(comments) {
    let found;
    for (const { updated_at: iso } of comments) {
        const at = Date.parse(iso ?? '');
        if (iso && Number.isFinite(at) && (!found || at > found.at))
            found = { at, iso };
    }
    return found?.iso;
}

;// CONCATENATED MODULE: ./src/github/approval-event.ts



const WORDS = {
    issue_comment: 'comment',
    pull_request_review: 'review',
    pull_request_review_comment: 'comment',
    discussion_comment: 'comment',
    issues: 'issue',
    discussion: 'discussion',
};
function readApprovalEvent(eventName, event, repository) {
    const fork = forkOf(eventName, event, repository);
    const wordsKind = WORDS[eventName];
    const words = wordsKind ? { kind: wordsKind, author: wordsAuthorOf(eventName, event) } : undefined;
    return {
        subject: subjectOf(eventName, event, fork, repository),
        fork,
        ...(words ? { words } : {}),
        sender: authorOf(event?.sender),
    };
}
function subjectOf(eventName, event, fork, repository) {
    const thread = eventThread(event, repository);
    if (thread?.pullRequest)
        return { kind: 'pull', number: thread.number };
    if (eventName === 'issues' || eventName === 'issue_comment') {
        const issue = event?.issue?.number;
        const id = eventName === 'issues' ? issue : event?.comment?.id;
        if (isId(issue) && isId(id)) {
            const item = eventName === 'issues'
                ? { thread: issue, kind: 'issue', id, label: `issue #${issue}` }
                : { thread: issue, kind: 'comment', id, label: `the comment ${id} on issue #${issue}` };
            return { kind: 'item', item };
        }
        return { kind: 'unpinnable', why: `the ${eventName} event names no issue or comment` };
    }
    if (eventName === 'discussion' || eventName === 'discussion_comment') {
        return {
            kind: 'unpinnable',
            why: 'a discussion cannot carry the approval comment (GitHub writes discussion comments only through GraphQL)',
        };
    }
    if (fork) {
        return {
            kind: 'unpinnable',
            why: `the ${eventName} event comes from a fork and names no pull request whose head could be approved`,
        };
    }
    return { kind: 'none' };
}
function forkOf(eventName, event, repository) {
    const head = event?.pull_request?.head?.repo?.full_name;
    const base = event?.pull_request?.base?.repo?.full_name;
    if (head !== undefined && base !== undefined && head.toLowerCase() !== base.toLowerCase()) {
        return true;
    }
    const suite = eventName === 'check_suite' ? event?.check_suite : event?.workflow_run;
    if (eventName !== 'workflow_run' && eventName !== 'check_suite')
        return false;
    const from = suite?.head_repository?.full_name;
    const own = repository ?? event?.repository?.full_name;
    return !from || !own || from.toLowerCase() !== own.toLowerCase();
}
function wordsAuthorOf(eventName, event) {
    if (eventName === 'pull_request_review')
        return authorOf(event?.review?.user);
    if (eventName === 'issues' || eventName === 'discussion') {
        return authorOf(event?.sender);
    }
    return authorOf(event?.comment?.user);
}
function authorOf(user) {
    const login = user?.login;
    if (typeof login !== 'string' || login === '')
        return undefined;
    return { login, isBot: user?.type === 'Bot' || login.endsWith('[bot]'), what: 'event' };
}
function isId(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
function itemDigest(item, text) {
    return (0,external_node_crypto_namespaceObject.createHash)('sha256')
        .update(`${item.kind}:${item.id}\n${text}`)
        .digest('hex')
        .slice(0, ITEM_DIGEST_LENGTH);
}

;// CONCATENATED MODULE: ./src/github/approval-target.ts


async function approval_target_readTarget(octokit, repository, subject, eventFork) {
    if (subject.kind === 'item')
        return await readItem(octokit, repository, subject.item);
    const where = { ...repository, number: subject.number };
    try {
        const { data } = await octokit.rest.pulls.get({
            owner: where.owner,
            repo: where.repo,
            pull_number: where.number,
            ...withDeadline(),
        });
        const head = data.head.sha;
        if (!/^[0-9a-f]{40}$/.test(head))
            return `pull request #${where.number} has no head commit`;
        if (data.state !== 'open')
            return `pull request #${where.number} is ${data.state}`;
        const headRepo = data.head.repo?.full_name;
        const fork = headRepo === undefined || headRepo !== data.base.repo.full_name;
        const target = {
            ...where,
            pin: { kind: 'commit', sha: head },
            author: data.user?.login,
        };
        return { target, fork: fork || eventFork };
    }
    catch (error) {
        return `pull request #${where.number} could not be read (${reasonOf(error)}), so no approval can be checked`;
    }
}
async function readItem(octokit, repository, item) {
    try {
        const read = item.kind === 'issue'
            ? await octokit.rest.issues
                .get({ ...repository, issue_number: item.id, ...withDeadline() })
                .then(({ data }) => ({
                text: `${data.title}\n${data.body ?? ''}`,
                author: data.user?.login,
                closed: data.state !== 'open',
            }))
            : await octokit.rest.issues
                .getComment({ ...repository, comment_id: item.id, ...withDeadline() })
                .then(({ data }) => ({
                text: data.body ?? '',
                author: data.user?.login,
                closed: false,
            }));
        if (read.closed)
            return `${item.label} is closed`;
        const target = {
            ...repository,
            number: item.thread,
            pin: { kind: 'item', item: item.label, digest: itemDigest(item, read.text) },
            author: read.author,
            item: { kind: item.kind, id: item.id },
        };
        return { target, fork: false };
    }
    catch (error) {
        const gone = error.status === 404;
        return gone
            ? `${item.label} is gone`
            : `${item.label} could not be read (${reasonOf(error)}), so no approval can be checked`;
    }
}

;// CONCATENATED MODULE: ./src/github/commenter.ts


function screenAuthor(author, me, rules) {
    const refuse = (reason) => ({
        kind: 'decided',
        admission: { admitted: false, reason },
    });
    if (!author)
        return refuse('the event names no author, so their permission cannot be checked');
    const who = `@${author.login}`;
    if (author.login.toLowerCase() === me.toLowerCase()) {
        return refuse(`the ${author.what} is this action's own (${who})`);
    }
    if (author.isBot) {
        const bot = author.login.toLowerCase().replace(/\[bot\]$/, '');
        if (rules.allowedBots.includes(bot)) {
            return {
                kind: 'decided',
                admission: { admitted: true, reason: `${who} is listed in allowed_bots` },
            };
        }
        return refuse(`${who} is a bot, and allowed_bots does not list it`);
    }
    return { kind: 'check-permission', login: author.login };
}
function roleOf(answer) {
    const known = (value) => value !== undefined && ROLE_WORDS.includes(value);
    if (known(answer.role_name))
        return answer.role_name;
    if (known(answer.permission))
        return answer.permission;
    return 'none';
}
function judgeRole(login, role, least) {
    const who = `@${login}`;
    if (meetsRole(role, least)) {
        return {
            admitted: true,
            reason: `${who} has ${role} permission (commenter_permission: ${least})`,
        };
    }
    return {
        admitted: false,
        reason: `${who} has ${role === 'none' ? 'no' : role} permission on the repository; commenter_permission asks for at least ${least}`,
    };
}
async function admitAuthor(octokit, repository, author, rules) {
    try {
        const screening = screenAuthor(author, await tokenIdentity(octokit), rules);
        if (screening.kind === 'decided')
            return screening.admission;
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
            ...repository,
            username: screening.login,
            ...withDeadline(),
        });
        return judgeRole(screening.login, roleOf(data), rules.commenterPermission);
    }
    catch (error) {
        return {
            admitted: false,
            reason: `the author's permission could not be checked (${reasonOf(error)})`,
        };
    }
}

;// CONCATENATED MODULE: ./src/github/approvals-given.ts



async function approvals_given_judge(octokit, claim, target, github) {
    const screening = screenApproval(claim, target);
    if (screening.kind === 'refused')
        return { counts: false, reason: screening.reason };
    try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
            owner: target.owner,
            repo: target.repo,
            username: screening.login,
            ...withDeadline(),
        });
        return judgeApprover(claim, roleOf(data), github.approverPermission, target.pin);
    }
    catch (error) {
        return {
            counts: false,
            reason: `@${claim.login}'s permission could not be checked (${reasonOf(error)})`,
        };
    }
}
async function commentStands(octokit, where, comment) {
    if (comment.id === undefined)
        return 'the event names no comment id, so it cannot be re-read';
    try {
        const { data } = await octokit.rest.issues.getComment({
            ...where,
            comment_id: comment.id,
            ...withDeadline(),
        });
        const edited = data.updated_at !== data.created_at || (data.body ?? '') !== comment.body;
        return edited
            ? 'the comment was edited since it was made, and only an unedited one approves'
            : undefined;
    }
    catch (error) {
        if (error.status === 404)
            return 'the comment was deleted';
        return `the comment could not be re-read (${reasonOf(error)})`;
    }
}
async function approvalOnThread(octokit, target, record, github, log) {
    const claims = target.pin.kind === 'commit' ? await reviewClaims(octokit, target) : [];
    if (typeof claims === 'string')
        return claims;
    const comments = await commentClaims(octokit, target);
    if (typeof comments === 'string')
        return comments;
    for (const claim of [...claims, ...comments]) {
        const late = lateness(claim, target.pin, record);
        if (late)
            continue;
        const verdict = await approvals_given_judge(octokit, claim, target, github);
        if (verdict.counts) {
            const { login, via, sha } = claim;
            return { target, login, via, sha, reason: verdict.reason };
        }
        log.info(`approval: ${claim.via === 'review' ? 'a review' : 'a comment'} does not count: ${verdict.reason}.`);
    }
    return undefined;
}
function lateness(claim, pin, record) {
    if (pin.kind === 'commit' && claim.via === 'comment') {
        return approvalAfterWait(claim, pin.sha, record);
    }
    if (pin.kind === 'item' && record?.pin === undefined)
        return `no step waited for ${pin.item}`;
    if (!record)
        return undefined;
    if (pin.kind === 'item' && record.pin !== pinValue(pin)) {
        return `the step waited for ${record.pin}, not ${pinWords(pin)}`;
    }
    return madeAfterRecord(claim.madeAt, record, pinWords(pin));
}
async function reviewClaims(octokit, target) {
    let reviews;
    try {
        reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
            owner: target.owner,
            repo: target.repo,
            pull_number: target.number,
            per_page: 100,
            ...withDeadline(),
        });
    }
    catch (error) {
        return `the reviews of pull request #${target.number} could not be read (${reasonOf(error)})`;
    }
    const latest = new Map();
    for (const review of reviews) {
        const login = review.user?.login;
        if (login && ['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'].includes(review.state)) {
            latest.set(login.toLowerCase(), review);
        }
    }
    const claims = [];
    for (const review of latest.values()) {
        if (review.state !== 'APPROVED' || !review.user || !review.commit_id)
            continue;
        if (pinValue(target.pin) !== review.commit_id)
            continue;
        claims.push({
            via: 'review',
            login: review.user.login,
            isBot: review.user.type === 'Bot' || review.user.login.endsWith('[bot]'),
            sha: review.commit_id,
            ...(review.submitted_at ? { madeAt: review.submitted_at } : {}),
        });
    }
    return claims;
}
async function commentClaims(octokit, target) {
    let comments;
    try {
        comments = await octokit.paginate(octokit.rest.issues.listComments, {
            owner: target.owner,
            repo: target.repo,
            issue_number: target.number,
            per_page: 100,
            ...withDeadline(),
        });
    }
    catch (error) {
        return `the comments of #${target.number} could not be read (${reasonOf(error)})`;
    }
    const pin = pinValue(target.pin);
    const claims = [];
    for (const comment of comments) {
        const sha = approveCommandOf(comment.body);
        if (!sha || !comment.user || comment.updated_at !== comment.created_at)
            continue;
        if (!pin.startsWith(sha))
            continue;
        claims.push({
            via: 'comment',
            login: comment.user.login,
            isBot: comment.user.type === 'Bot' || comment.user.login.endsWith('[bot]'),
            sha,
            madeAt: comment.created_at,
        });
    }
    return claims;
}

;// CONCATENATED MODULE: ./src/github/approval.ts








const OPEN_TO_FORKS = "approval is none on a pull_request_target event from a fork: anyone who opens a pull request can start a paid run with this repository's key and the workflow's prompt. Set approval: forks to start it only once a maintainer approves the commit (docs/security.md).";
async function decideApproval(github, context, log) {
    const { eventName, event, repository } = context;
    const facts = readApprovalEvent(eventName, event, repository && `${repository.owner}/${repository.repo}`);
    if (github.approval === 'none') {
        if (eventName === 'pull_request_target' && facts.fork)
            log.warning(OPEN_TO_FORKS);
        return { kind: 'start' };
    }
    if (!repository) {
        return { kind: 'refuse', reason: 'the workflow names no repository whose people could approve' };
    }
    const octokit = await context.client();
    const { subject } = facts;
    if (subject.kind === 'none' || subject.kind === 'unpinnable') {
        return await unpinned(github, facts, octokit, repository, eventName);
    }
    const claim = eventName === 'issue_comment' ? commentClaim(event) : undefined;
    const thread = {
        ...repository,
        number: subject.kind === 'pull' ? subject.number : subject.item.thread,
    };
    const found = await findRecord(octokit, thread, github.key, log);
    if (typeof found === 'string')
        return { kind: 'refuse', reason: found };
    const waited = claim && subject.kind === 'item' ? waitedItem(found, subject.item.thread) : subject;
    if (typeof waited === 'string')
        return { kind: 'refuse', reason: waited };
    const read = await approval_target_readTarget(octokit, repository, waited, facts.fork);
    if (typeof read === 'string')
        return { kind: 'refuse', reason: read };
    const { target, fork } = read;
    const record = found && { pin: found.marker?.head, writtenAt: found.writtenAt };
    if (claim) {
        const approved = await decideClaim(octokit, claim, target, record, github, event);
        if (typeof approved === 'string')
            return { kind: 'refuse', reason: approved, target };
        return { kind: 'start', approved, ...(found ? { record: found } : {}) };
    }
    const why = await needOf(github, facts, fork, octokit, repository);
    if (!why)
        return { kind: 'start' };
    const given = await approvalOnThread(octokit, target, record, github, log);
    if (typeof given === 'string')
        return { kind: 'refuse', reason: given, target };
    const withRecord = found ? { record: found } : {};
    return given
        ? { kind: 'start', approved: given, ...withRecord }
        : { kind: 'wait', target, why, fork, ...withRecord };
}
async function unpinned(github, facts, octokit, repository, eventName) {
    const event = `the ${eventName || 'unknown'} event`;
    if (github.approval === 'always') {
        const sender = await admitAuthor(octokit, repository, facts.sender, {
            commenterPermission: github.approverPermission,
            allowedBots: [],
        });
        if (sender.admitted && facts.subject.kind === 'none')
            return { kind: 'start' };
        const why = facts.subject.kind === 'unpinnable' ? facts.subject.why : sender.reason;
        return {
            kind: 'refuse',
            reason: `approval: always needs a maintainer's approval of every run, and ${event} has nothing one could be pinned to (${why}); use approval: forks, or start it from an event a maintainer makes`,
        };
    }
    const why = await needOf(github, facts, facts.fork, octokit, repository);
    if (!why)
        return { kind: 'start' };
    const reason = facts.subject.kind === 'unpinnable' ? facts.subject.why : `${event} has nothing to pin it to`;
    return {
        kind: 'refuse',
        reason: `${why.replace(/`/g, '')}, and ${reason}, so no approval can admit it`,
    };
}
async function needOf(github, facts, fork, octokit, repository) {
    if (github.approval === 'always' && facts.subject.kind === 'item' && facts.words) {
        const author = await admitAuthor(octokit, repository, facts.words.author, {
            commenterPermission: github.approverPermission,
            allowedBots: [],
        });
        if (author.admitted)
            return undefined;
    }
    const wordsBelow = github.approval === 'forks' && !fork && facts.words
        ? !(await admitAuthor(octokit, repository, facts.words.author, github)).admitted
        : false;
    return approvalNeeded(github.approval, {
        fork,
        ...(wordsBelow && facts.words ? { wordsBelow: facts.words.kind } : {}),
    });
}
function waitedItem(found, thread) {
    const item = found?.marker?.item;
    if (!item)
        return `no step of this workflow waits for an approval on issue #${thread}`;
    const label = item.kind === 'issue' ? `issue #${thread}` : `the comment ${item.id} on issue #${thread}`;
    return { kind: 'item', item: { thread, kind: item.kind, id: item.id, label } };
}
async function findRecord(octokit, target, key, log) {
    try {
        return await new ApprovalComment(octokit, target, key, log).find();
    }
    catch (error) {
        return `the waiting comment could not be read (${reasonOf(error)})`;
    }
}
async function decideClaim(octokit, claim, target, record, github, event) {
    const verdict = await approvals_given_judge(octokit, claim, target, github);
    if (!verdict.counts)
        return verdict.reason;
    const late = target.pin.kind === 'commit'
        ? approvalAfterWait(claim, target.pin.sha, record)
        : !record || record.pin !== pinValue(target.pin)
            ? `no step waits for an approval of ${target.pin.item} as it reads now`
            : madeAfterRecord(claim.madeAt, record, target.pin.item);
    if (late)
        return late;
    const gone = await commentStands(octokit, target, {
        id: event?.comment?.id,
        body: event?.comment?.body ?? '',
    });
    if (gone)
        return gone;
    const { login, via, sha } = claim;
    return { target, login, via, sha, reason: verdict.reason };
}
function commentClaim(event) {
    const body = event?.comment?.body;
    if (!looksLikeApprove(body))
        return undefined;
    const author = eventAuthorOf(event);
    const sha = approveCommandOf(body);
    const action = event?.action ?? 'unknown';
    const void_ = action !== 'created'
        ? `the comment was ${action === 'edited' ? 'edited' : action}, and only a new comment approves (an edit could point an old approval at another commit)`
        : sha === undefined
            ? `the comment does not read "/approve <sha>" with ${MIN_APPROVE_SHA} to 40 hex characters of the head`
            : !author
                ? 'the event names no author, so their permission cannot be checked'
                : undefined;
    return {
        via: 'comment',
        login: author?.login ?? '',
        isBot: author?.isBot ?? false,
        sha: sha ?? '',
        madeAt: event?.comment?.created_at,
        ...(void_ ? { void: void_ } : {}),
    };
}

;// CONCATENATED MODULE: ./src/github/writes.ts
class NewestWrites {
    #write;
    #queue = Promise.resolve();
    #pending;
    #stopped = false;
    #final = false;
    #lastPushed;
    constructor(write) {
        this.#write = write;
    }
    push(value, final = false) {
        if (this.#stopped || (this.#final && !final))
            return;
        if (final)
            this.#final = true;
        const waiting = this.#pending !== undefined;
        this.#pending = { value };
        if (!waiting)
            this.#queue = this.#queue.then(() => this.#writePending());
    }
    pushChanged(value, final = false) {
        const key = JSON.stringify(value);
        if (key === this.#lastPushed)
            return;
        this.#lastPushed = key;
        this.push(value, final);
    }
    async settle(maxMs, log, what) {
        if ((await this.settled(maxMs)) === 'gave-up') {
            log.warning(`GitHub: ${what} was not brought up to date within ${maxMs / 1000}s; GitHub is not answering. The run is not affected.`);
        }
    }
    async settled(maxMs) {
        let timer;
        const gaveUp = new Promise((resolve) => {
            timer = setTimeout(() => resolve('gave-up'), maxMs);
        });
        try {
            const result = await Promise.race([this.#queue.then(() => 'done'), gaveUp]);
            if (result === 'gave-up') {
                this.#stopped = true;
                this.#pending = undefined;
            }
            return result;
        }
        finally {
            clearTimeout(timer);
        }
    }
    get waiting() {
        return this.#pending !== undefined;
    }
    get stopped() {
        return this.#stopped;
    }
    async #writePending() {
        const next = this.#pending;
        this.#pending = undefined;
        if (next && !this.#stopped)
            await this.#write(next.value);
    }
}

;// CONCATENATED MODULE: ./src/github/status.ts








const MAX_DESCRIPTION = 140;
function statusContext(key) {
    return cut(`cloud-agent/${key}`, 100);
}
function oneLine(text, max = MAX_DESCRIPTION) {
    const flat = text
        .replace(/[\u0000-\u001f\u007f]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
    return flat.length > max ? clip(flat, max - 1) : flat;
}
function pendingStatus(run, fallbackTarget) {
    return {
        state: 'pending',
        description: oneLine(`${wordsFor(run).label} (run ${run.run_id})`),
        targetUrl: safeHttpUrl(run.session_link) ?? fallbackTarget,
    };
}
function finalStatus(outcome, fallbackTarget) {
    const ending = endingOf(outcome);
    const words = describeEnding(ending);
    const reason = words.showsReason ? ending.run?.statusMessage : undefined;
    const question = outcome.kind === 'blocked' ? outcome.question : undefined;
    const description = oneLine(ending.kind === 'started'
        ? `Started (run ${ending.run.runId}); this step does not wait for it`
        : ending.kind === 'superseded'
            ? `Superseded by run ${ending.newerRunId}`
            : [words.label, reason ?? question].filter(Boolean).join(': '));
    return {
        state: words.commitState,
        description,
        targetUrl: safeHttpUrl(outcome.run?.session_link) ?? fallbackTarget,
    };
}
class CommitStatusReporter {
    #octokit;
    #target;
    #log;
    #writes = new NewestWrites((report) => this.#write(report));
    constructor(octokit, target, log) {
        this.#octokit = octokit;
        this.#target = target;
        this.#log = log;
    }
    show(report, final = false) {
        this.#writes.pushChanged(report, final);
    }
    async settled(maxMs = timing/* GITHUB_LIMITS */.f_.settleMs) {
        await this.#writes.settle(maxMs, this.#log, `the commit status ${this.#target.context}`);
    }
    async #write(report) {
        const { owner, repo, sha, context } = this.#target;
        try {
            await this.#octokit.rest.repos.createCommitStatus({
                owner,
                repo,
                sha,
                context,
                state: report.state,
                description: report.description,
                target_url: report.targetUrl,
                ...withDeadline(),
            });
        }
        catch (error) {
            this.#log.warning(`GitHub: could not set the commit status ${context} on ${sha.slice(0, 7)} (${reasonOf(error)}). The run is not affected.`);
        }
    }
}

;// CONCATENATED MODULE: ./src/github/check-run.ts







const ANNOTATIONS_PER_REQUEST = 50;
const CHECK_SUMMARY_CHARS = 65_535;
const ANSWER_CHARS = 40_000;
function checkReport(outcome, extras) {
    const words = describeEnding(endingOf(outcome));
    const { review } = extras;
    const { conclusion, title } = words.check;
    const parts = [
        review
            ? escapeMarkdown(words.why)
            : `${escapeMarkdown(words.why)} Outcome: \`${words.outcome}\`.`,
    ];
    const answer = review?.summary ?? extras.answer;
    if (answer) {
        parts.push('', agentDetails(review ? "The agent's review" : "The agent's answer", clipAnswer(answer, ANSWER_CHARS), true));
    }
    const summary = parts.join('\n');
    return {
        conclusion,
        title,
        summary: summary.length > CHECK_SUMMARY_CHARS ? clip(summary, CHECK_SUMMARY_CHARS - 1) : summary,
    };
}
function stoppedCheckReport(why, cancelled, runs = 'the run was') {
    const title = cancelled ? `The step stopped; ${runs} cancelled` : 'The step stopped';
    return {
        conclusion: cancelled ? 'cancelled' : 'failure',
        title,
        summary: escapeMarkdown(why),
    };
}
const MAX_MESSAGE_CHARS = 4_000;
function annotationsOf(comments, verdict) {
    return comments
        .filter((comment) => comment.side !== 'LEFT')
        .map((comment) => ({
        path: comment.path.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, ''),
        start_line: Math.min(comment.start_line ?? comment.line, comment.line),
        end_line: comment.line,
        annotation_level: verdict === 'request_changes' ? 'warning' : 'notice',
        message: comment.body.length > MAX_MESSAGE_CHARS
            ? clip(comment.body, MAX_MESSAGE_CHARS - 1)
            : comment.body,
    }));
}
const SAVED_SUMMARY_CHARS = 1_000;
function savedCheckReport(report) {
    const [first = ''] = report.summary.split('\n\n');
    return {
        conclusion: report.conclusion,
        title: report.title,
        summary: first.length > SAVED_SUMMARY_CHARS ? clip(first, SAVED_SUMMARY_CHARS - 1) : first,
    };
}
function reportFromSaved(saved) {
    return {
        conclusion: saved.conclusion,
        title: saved.title,
        summary: [
            saved.summary,
            '',
            "GitHub did not take the step's own completion of this check, so the post step completed it. " +
                "The agent's answer is in the workflow run's job summary; a review's comments are on the pull request.",
        ].join('\n'),
    };
}
class CheckRunReporter {
    #octokit;
    #target;
    #log;
    #record;
    #id;
    constructor(octokit, target, log, record, id) {
        this.#octokit = octokit;
        this.#target = target;
        this.#log = log;
        this.#record = record;
        this.#id = id(this);
    }
    static open(octokit, target, log, detailsUrl, record) {
        return new CheckRunReporter(octokit, target, log, record, (reporter) => reporter.#create(target.sha, detailsUrl));
    }
    static adopt(octokit, target, known, log) {
        return new CheckRunReporter(octokit, target, log, undefined, (reporter) => 'id' in known ? Promise.resolve(known.id) : reporter.#lookUp(known));
    }
    get id() {
        return this.#id;
    }
    get name() {
        return statusContext(this.#target.key);
    }
    async finish(report, annotations = []) {
        const id = await this.#id;
        if (id === undefined)
            return false;
        const batches = [];
        for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
            batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
        }
        const output = { title: report.title, summary: report.summary };
        this.#record?.saveCheckRunReport(savedCheckReport(report));
        try {
            let expected = 0;
            for (const batch of batches.slice(0, -1)) {
                expected += batch.length;
                await this.#update(id, { output: { ...output, annotations: batch } }, (run) => run.annotations >= expected);
            }
            expected += batches.at(-1)?.length ?? 0;
            await this.#update(id, {
                status: 'completed',
                conclusion: report.conclusion,
                completed_at: new Date().toISOString(),
                output: { ...output, annotations: batches.at(-1) ?? [] },
            }, (run) => run.status === 'completed' && run.annotations >= expected);
        }
        catch (error) {
            const next = this.#record ? ' The post step completes it.' : ' The run is not affected.';
            this.#log.warning(`GitHub: could not complete the check run ${this.name} (${reasonOf(error)}).${failureHint(error, CHECKS_PERMISSION)}${next}`);
            return false;
        }
        this.#record?.markCheckRunDone();
        return true;
    }
    async #update(id, fields, took) {
        const { owner, repo } = this.#target;
        await withRetries(async (deadline) => {
            await this.#octokit.rest.checks.update({
                owner,
                repo,
                check_run_id: id,
                ...fields,
                ...deadline,
            });
            return true;
        }, {
            tookEffect: async (deadline) => {
                const { data } = await this.#octokit.rest.checks.get({
                    owner,
                    repo,
                    check_run_id: id,
                    ...deadline,
                });
                return (took({ status: data.status, annotations: data.output.annotations_count }) || undefined);
            },
        });
    }
    async #create(sha, detailsUrl) {
        const { owner, repo } = this.#target;
        const lookup = { sha, externalId: (0,external_node_crypto_namespaceObject.randomUUID)() };
        this.#record?.saveCheckRunLookup(lookup);
        try {
            const id = await withRetries(async (deadline) => {
                const { data } = await this.#octokit.rest.checks.create({
                    owner,
                    repo,
                    name: this.name,
                    head_sha: sha,
                    external_id: lookup.externalId,
                    status: 'in_progress',
                    started_at: new Date().toISOString(),
                    details_url: detailsUrl,
                    ...deadline,
                });
                return data.id;
            }, { tookEffect: (deadline) => this.#find(lookup, deadline) });
            this.#record?.saveCheckRunId(id);
            return id;
        }
        catch (error) {
            if (refused(error))
                this.#record?.saveCheckRunLookup(undefined);
            this.#log.warning(`GitHub: could not create the check run ${this.name} on ${sha.slice(0, 7)} (${reasonOf(error)}).${failureHint(error, CHECKS_PERMISSION)} The run goes on without it.`);
            return undefined;
        }
    }
    async #lookUp(lookup) {
        try {
            const id = await withRetries((deadline) => this.#find(lookup, deadline));
            if (id === undefined) {
                this.#log.info(`No check run ${this.name} with external_id ${lookup.externalId} on ${lookup.sha.slice(0, 7)}: the main step's create made none.`);
            }
            return id;
        }
        catch (error) {
            this.#log.warning(`GitHub: could not look for the check run ${this.name} on ${lookup.sha.slice(0, 7)} (${reasonOf(error)}).${failureHint(error, CHECKS_PERMISSION)} It may be left in progress.`);
            return undefined;
        }
    }
    async #find(lookup, deadline) {
        const runs = await this.#octokit.paginate(this.#octokit.rest.checks.listForRef, {
            owner: this.#target.owner,
            repo: this.#target.repo,
            ref: lookup.sha,
            check_name: this.name,
            filter: 'all',
            per_page: 100,
            ...deadline,
        });
        return runs.find((run) => run.external_id === lookup.externalId)?.id;
    }
}
const CHECKS_PERMISSION = 'check_run needs the permission checks: write.';
function refused(error) {
    const { status, response } = error;
    return response !== undefined && status !== undefined && status >= 400 && status < 500;
}

;// CONCATENATED MODULE: ./src/step/approval-step.ts










async function admitByApproval(settings, world, io) {
    const github = new GitHubContext(settings.github.token, world);
    const gate = await decideApproval(settings.github, github, io);
    switch (gate.kind) {
        case 'start':
            if (!gate.approved)
                return { settings, github };
            return await startApproved(settings, world, gate.approved, gate.record, io);
        case 'wait': {
            const ending = awaiting(settings, gate.target.pin, { why: gate.why });
            await showWaiting(settings, github, gate, ending, io);
            await publishAwaiting(io, ending);
            return undefined;
        }
        case 'refuse':
            return await refuse(settings, gate.target?.pin, gate.reason, io);
    }
}
function awaiting(settings, pin, facts) {
    return {
        kind: 'awaiting-approval',
        pin,
        why: facts.why ??
            `the run needs a maintainer's approval (\`approval: ${settings.github.approval}\`)`,
        approverPermission: settings.github.approverPermission,
        ...(facts.refused ? { refused: facts.refused } : {}),
    };
}
async function refuse(settings, pin, reason, io) {
    io.info(`approval: nothing was started: ${reason}.`);
    await publishAwaiting(io, awaiting(settings, pin, { refused: reason }));
    return undefined;
}
function promptOf(settings) {
    return settings.target.kind === 'create' ? (settings.target.request.prompt ?? '') : '';
}
async function startApproved(settings, world, approved, record, io) {
    const { target } = approved;
    const head = target.pin.kind === 'commit' ? target.pin.sha : undefined;
    const github = new GitHubContext(settings.github.token, world, head);
    const prompt = promptDigest(promptOf(settings));
    if (record?.marker && record.marker.prompt !== prompt) {
        const reason = "this step's prompt is not the prompt of the step that waited; give the step a prompt that does not depend on the event (a comment's workflow run has no pull_request payload), or re-run the waiting job";
        return await refuse(settings, target.pin, reason, io);
    }
    const comment = new ApprovalComment(await github.client(), target, settings.github.key, io);
    const body = renderApproved({
        key: settings.github.key,
        target,
        login: approved.login,
        via: approved.via,
        prompt,
        workflowRun: github.workflowRun,
    });
    const recorded = await comment.write(body, 'Nothing was started.', record, 'approved');
    if (!recorded) {
        const reason = 'the approval could not be recorded on the thread, and unrecorded it could admit more than one run';
        return await refuse(settings, target.pin, reason, io);
    }
    io.info(`approval: ${approved.reason}; starting the run${head ? ` on ${head}` : ''}.`);
    return { settings: pinnedPrompt(settings, target), github };
}
function pinnedPrompt(settings, target) {
    if (settings.target.kind !== 'create')
        return settings;
    const { request } = settings.target;
    const { pin } = target;
    const pinned = pin.kind === 'commit'
        ? `(Approved for commit ${pin.sha} of pull request #${target.number}: work on exactly that commit.)`
        : `(Approved by a maintainer for ${pin.item} as it read when approved.)`;
    const prompt = request.prompt ? `${request.prompt}\n\n${pinned}` : pinned;
    return { ...settings, target: { kind: 'create', request: { ...request, prompt } } };
}
async function showWaiting(settings, github, gate, ending, io) {
    const octokit = await github.client();
    const { key, approverPermission } = settings.github;
    const { target, fork, record } = gate;
    const words = {
        key,
        target,
        why: ending.why,
        fork,
        approverPermission,
        workflowRun: github.workflowRun,
    };
    const body = renderWaiting({ ...words, prompt: promptDigest(promptOf(settings)) });
    const comment = new ApprovalComment(octokit, target, key, io);
    const head = target.pin.kind === 'commit' ? target.pin.sha : undefined;
    const at = head && { owner: target.owner, repo: target.repo, sha: head };
    const status = at && settings.github.commitStatus
        ? new CommitStatusReporter(octokit, { ...at, context: statusContext(key) }, io)
        : undefined;
    status?.show({
        state: OUTCOME_RECORDS.awaiting_approval.commitState,
        description: oneLine(`Waiting for approval of ${approval_short(head ?? '')}: ${approveLine(head ?? '')}`),
        targetUrl: github.workflowRun,
    });
    const check = at && settings.output.checkRun
        ? CheckRunReporter.open(octokit, { ...at, key }, io, github.workflowRun)
        : undefined;
    const { check: conclusion } = describeEnding(ending);
    await Promise.all([
        comment.write(body, 'Nothing was started.', record),
        status?.settled(),
        check?.finish({ ...conclusion, summary: renderAwaitingSummary(ending) }),
    ]);
}

;// CONCATENATED MODULE: ./src/github/compare.ts

const COMMITS_LISTED = 250;
async function compareHeads(github, base, head) {
    if (base === head)
        return { kind: 'identical' };
    const repository = github.repository;
    if (!repository || !github.hasToken)
        return { kind: 'unknown', why: 'no GitHub token' };
    try {
        const octokit = await github.client();
        const { data } = await withRetries((deadline) => octokit.rest.repos.compareCommitsWithBasehead({
            ...repository,
            basehead: `${base}...${head}`,
            per_page: COMMITS_LISTED,
            ...deadline,
        }));
        switch (data.status) {
            case 'identical':
                return { kind: 'identical' };
            case 'ahead':
                return {
                    kind: 'ahead',
                    commits: data.commits.map((commit) => ({
                        sha: commit.sha,
                        title: (commit.commit.message.split('\n', 1)[0] ?? '').trim(),
                    })),
                };
            default:
                return { kind: 'not-ancestor' };
        }
    }
    catch (error) {
        if (error.status === 404)
            return { kind: 'not-ancestor' };
        return { kind: 'unknown', why: `GitHub's compare failed: ${reasonOf(error)}` };
    }
}
function steerSource(github, head, thread) {
    return {
        head,
        recordedHead: async (runId) => thread?.headOf(runId),
        compare: (base, next) => compareHeads(github, base, next),
    };
}
function githubSteering(step, head) {
    return {
        source: steerSource(step.github, head, step.thread),
        newerStep: newerStepOf(step.github, head, step.world.runId),
    };
}
function newerStepOf(github, ownHead, ownWorkflowRun) {
    return async (deadline) => {
        const repository = github.repository;
        const number = github.pullRequest;
        if (!repository || !number || !github.hasToken)
            return undefined;
        const octokit = await github.client();
        const within = () => withDeadline(Math.max(0, deadline - Date.now()));
        const headMoved = async () => {
            if (!ownHead)
                return undefined;
            const { data } = await octokit.rest.pulls.get({
                ...repository,
                pull_number: number,
                ...within(),
            });
            const head = data.head.sha;
            return head && head !== ownHead
                ? `the pull request's head moved on to ${head.slice(0, 12)}`
                : undefined;
        };
        const newerWorkflowRun = async () => {
            const own = Number(ownWorkflowRun);
            if (!Number.isSafeInteger(own) || own <= 0)
                return undefined;
            const { data: run } = await octokit.rest.actions.getWorkflowRun({
                ...repository,
                run_id: own,
                ...within(),
            });
            const { data } = await octokit.rest.actions.listWorkflowRuns({
                ...repository,
                workflow_id: run.workflow_id,
                per_page: NEWER_RUNS_LISTED,
                ...within(),
            });
            const newer = data.workflow_runs.find((other) => other.id > own &&
                other.status !== 'completed' &&
                (other.pull_requests ?? []).some((pull) => pull.number === number));
            return newer
                ? `a newer workflow run of this workflow for the pull request, ${newer.id}, is ${newer.status ?? 'going'}`
                : undefined;
        };
        const [moved, started] = await Promise.allSettled([headMoved(), newerWorkflowRun()]);
        for (const signal of [moved, started]) {
            if (signal.status === 'fulfilled' && signal.value)
                return signal.value;
        }
        for (const signal of [moved, started]) {
            if (signal.status === 'rejected')
                throw signal.reason;
        }
        return undefined;
    };
}
const NEWER_RUNS_LISTED = 50;

;// CONCATENATED MODULE: ./src/github/review-body.ts



const MAX_BODY_CHARS = 65_536;
const AGENT_TEXT_CHARS = 20_000;
function normalizePath(path) {
    return path.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '');
}
function verdictHeading(verdict) {
    const { icon, title } = REVIEW_VERDICT_RECORDS[verdict];
    return `${icon} ${title}`;
}
function agentText(text) {
    const shown = text.length > AGENT_TEXT_CHARS ? `${cut(text, AGENT_TEXT_CHARS)}\n\n_(cut here)_` : text;
    return agentMarkdown(shown) || '_(empty)_';
}
function reviewMarker(key, runId, part) {
    const json = JSON.stringify({ key, run_id: runId, ...(part ? { part } : {}) });
    return `<!-- cloud-agent-review: ${json.replace(/--/g, '-\\u002d')} -->`;
}
function reviewMarkOf(body) {
    const match = /<!-- cloud-agent-review: (\{.*?\}) -->/.exec(body);
    if (!match?.[1])
        return undefined;
    try {
        const { key, run_id: runId, part } = JSON.parse(match[1]);
        if (typeof key !== 'string')
            return undefined;
        return {
            key,
            runId: typeof runId === 'string' ? runId : undefined,
            part: typeof part === 'number' ? part : undefined,
        };
    }
    catch {
        return undefined;
    }
}
function reviewKeyOf(body) {
    return reviewMarkOf(body)?.key;
}
const MAX_REVIEW_PARTS = 10;
function renderReviewBody(review, inBody, context) {
    const head = [reviewMarker(context.key, context.runId), `### ${verdictHeading(review.verdict)}`];
    if (review.verdict === 'approve') {
        head.push('', '_Posted as a comment: the action never approves a pull request._');
    }
    head.push('', agentText(review.summary));
    if (inBody.length > 0)
        head.push('', `**Comments outside the diff (${inBody.length})**`);
    const footer = [];
    const session = safeHttpUrl(context.sessionLink);
    if (session)
        footer.push(`[Session](${session})`);
    footer.push(`run <code>${escapeMarkdown(context.runId)}</code>`);
    const replaced = context.replaces.flatMap((url) => safeHttpUrl(url) ?? []);
    if (replaced.length > 0) {
        footer.push(`replaces ${replaced.map((url, i) => `[the earlier review${replaced.length > 1 ? ` ${i + 1}` : ''}](${url})`).join(', ')} of this commit`);
    }
    return fillBody(head, inBody, `<sub>${footer.join(' \u00b7 ')}</sub>`, {
        first: true,
        last: false,
    });
}
function renderContinuation(rest, context) {
    const first = safeHttpUrl(context.firstUrl);
    const head = [
        reviewMarker(context.key, context.runId, context.part),
        `### \ud83d\udcac Comments outside the diff, continued (${rest.length} more)`,
        '',
        `_This review is ${first ? `continued from [the review](${first})` : 'the continuation of the review'} of run <code>${escapeMarkdown(context.runId)}</code>, whose body could not hold every comment._`,
    ];
    return fillBody(head, rest, `<sub>run <code>${escapeMarkdown(context.runId)}</code></sub>`, {
        first: false,
        last: context.part >= MAX_REVIEW_PARTS,
    });
}
const POINTER_CHARS = 300;
function fillBody(head, comments, footer, part) {
    const end = `\n\n---\n${footer}`;
    const room = MAX_BODY_CHARS - end.length - POINTER_CHARS;
    let text = clipText(head.join('\n'), room);
    let placed = 0;
    for (const { comment, reason } of comments) {
        const where = `${escapeMarkdown(normalizePath(comment.path))}:${comment.line}`;
        const block = `\n\n<code>${where}</code> (${reason})\n\n${agentText(comment.body)}`;
        if (text.length + block.length <= room) {
            text += block;
        }
        else if (placed === 0 && !part.first) {
            text = clipText(text + block, room);
        }
        else {
            break;
        }
        placed += 1;
    }
    const rest = comments.slice(placed);
    if (rest.length > 0) {
        text += part.last
            ? `\n\n_${rest.length} more comments outside the diff did not fit in ${MAX_REVIEW_PARTS} reviews: every comment is in the step's \`structured_output\` output._`
            : `\n\n_${rest.length} more comments outside the diff are in the next review._`;
    }
    return { body: text + end, rest: part.last ? [] : rest };
}
function clipText(text, max) {
    if (text.length <= max)
        return text;
    const note = '\n\n_(cut here: GitHub keeps at most 65,536 characters.)_';
    const at = text.lastIndexOf('\n', max - note.length);
    return text.slice(0, Math.max(0, at)) + note;
}
function clipBody(body) {
    if (body.length <= MAX_BODY_CHARS)
        return body;
    const note = '\n\n_(The review is cut here: GitHub keeps at most 65,536 characters.)_';
    const room = body.lastIndexOf('\n', MAX_BODY_CHARS - note.length);
    return body.slice(0, Math.max(0, room)) + note;
}

;// CONCATENATED MODULE: ./src/github/review-diff.ts

const MAX_INLINE_COMMENTS = 50;
function diffLines(patch) {
    const right = new Map();
    const left = new Map();
    let hunk = -1;
    let oldLine = 0;
    let newLine = 0;
    for (const line of (patch ?? '').split('\n')) {
        const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
        if (header) {
            hunk += 1;
            oldLine = Number(header[1]);
            newLine = Number(header[2]);
            continue;
        }
        if (hunk < 0)
            continue;
        const mark = line.charAt(0);
        if (mark === '+') {
            right.set(newLine++, hunk);
        }
        else if (mark === '-') {
            left.set(oldLine++, hunk);
        }
        else if (mark === ' ' || line === '') {
            right.set(newLine++, hunk);
            left.set(oldLine++, hunk);
        }
    }
    return { RIGHT: right, LEFT: left };
}
function anchorComments(comments, files, max = MAX_INLINE_COMMENTS) {
    const anchored = { inline: [], inBody: [] };
    for (const comment of comments) {
        const path = normalizePath(comment.path);
        const side = comment.side ?? 'RIGHT';
        const lines = files.get(path)?.[side];
        const hunk = lines?.get(comment.line);
        if (!lines) {
            anchored.inBody.push({ comment, reason: 'the file is not in the diff' });
        }
        else if (hunk === undefined) {
            anchored.inBody.push({ comment, reason: 'the line is not in the diff' });
        }
        else if (anchored.inline.length >= max) {
            anchored.inBody.push({ comment, reason: `past the first ${max} inline comments` });
        }
        else {
            const start = comment.start_line;
            const range = start !== undefined && start < comment.line && lines.get(start) === hunk
                ? { start_line: start, start_side: side }
                : {};
            anchored.inline.push({
                path,
                line: comment.line,
                side,
                ...range,
                body: agentText(comment.body),
            });
        }
    }
    return anchored;
}

;// CONCATENATED MODULE: ./src/github/review.ts




const REVIEW_PERMISSION = 'pull_request_review needs pull-requests: write.';
async function postReview(octokit, target, review, context, log) {
    const { owner, repo, number } = target;
    const pr = `${owner}/${repo}#${number}`;
    try {
        const [files, { identity, earlier, listed }] = await Promise.all([
            withRetries((deadline) => readDiff(octokit, target, deadline)),
            withRetries((deadline) => earlierReviews(octokit, target, deadline)),
        ]);
        const anchored = anchorComments(review.comments, files);
        const post = postOne(octokit, target, { identity, runId: context.runId, listed });
        const body = (inBody) => renderReviewBody(review, inBody, {
            key: target.key,
            ...context,
            replaces: earlier.filter((r) => r.part === undefined).map((r) => r.url),
        });
        const event = review.verdict === 'request_changes' ? 'REQUEST_CHANGES' : 'COMMENT';
        let created;
        let inBody = anchored.inBody;
        let first = body(inBody);
        try {
            created = await post(event, first.body, anchored.inline);
        }
        catch (error) {
            if (error.status !== 422 || anchored.inline.length === 0)
                throw error;
            log.warning(`GitHub: the review's inline comments on ${pr} were refused (${reasonOf(error)}); posting them in the review's body instead.`);
            inBody = [
                ...review.comments.map((comment) => ({ comment, reason: 'GitHub refused it inline' })),
            ];
            first = body(inBody);
            created = await post(event, first.body, []);
        }
        const url = created.html_url;
        const parts = await postContinuations(post, first.rest, { key: target.key, ...context, url });
        const more = parts.posted > 0 ? `, continued in ${parts.posted} more review(s)` : '';
        log.info(`Posted the review on ${pr}: ${event === 'REQUEST_CHANGES' ? 'changes requested' : 'a comment review'}, ${review.comments.length - inBody.length} inline comment(s), ${inBody.length} in its body${more}.${url ? ` ${url}` : ''}`);
        if (parts.failed) {
            log.warning(`GitHub: could not post part ${parts.posted + 2} of the review on ${pr} (${reasonOf(parts.failed)}).${failureHint(parts.failed, REVIEW_PERMISSION)} ${parts.left} comment(s) outside the diff are only in the step's structured_output output.`);
        }
        await markReplaced(octokit, target, earlier, url, log);
        return { url, inline: review.comments.length - inBody.length, inBody: inBody.length };
    }
    catch (error) {
        log.warning(`GitHub: could not post the review on ${pr} (${reasonOf(error)}).${failureHint(error, REVIEW_PERMISSION)} The review is in the step's structured_output output. The run is not affected.`);
        return undefined;
    }
}
async function postContinuations(post, rest, context) {
    let left = rest;
    let posted = 0;
    for (let part = 2; left.length > 0 && part <= MAX_REVIEW_PARTS; part++) {
        const next = renderContinuation(left, { ...context, part, firstUrl: context.url });
        try {
            await post('COMMENT', next.body, []);
        }
        catch (error) {
            return { posted, failed: error, left: left.length };
        }
        posted += 1;
        left = next.rest;
    }
    return { posted, left: left.length };
}
function postOne(octokit, target, ours) {
    return (event, body, comments) => {
        const mark = reviewMarkOf(body);
        return withRetries(async (deadline) => {
            const { data } = await octokit.rest.pulls.createReview({
                owner: target.owner,
                repo: target.repo,
                pull_number: target.number,
                commit_id: target.sha,
                event,
                body,
                comments,
                ...deadline,
            });
            return data;
        }, {
            tookEffect: async (deadline) => {
                const reviews = await listReviews(octokit, target, deadline);
                return reviews.find((review) => {
                    const its = reviewMarkOf(review.body ?? '');
                    return (!ours.listed.has(review.id) &&
                        review.user?.login === ours.identity &&
                        its?.runId === ours.runId &&
                        its.key === mark?.key &&
                        its.part === mark.part);
                });
            },
        });
    };
}
const MAX_FILES = 3_000;
async function readDiff(octokit, target, deadline) {
    const files = new Map();
    const pages = octokit.paginate.iterator(octokit.rest.pulls.listFiles, {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.number,
        per_page: 100,
        ...deadline,
    });
    for await (const page of pages) {
        for (const file of page.data)
            files.set(file.filename, diffLines(file.patch));
        if (files.size >= MAX_FILES)
            break;
    }
    return files;
}
function listReviews(octokit, target, deadline) {
    return octokit.paginate(octokit.rest.pulls.listReviews, {
        owner: target.owner,
        repo: target.repo,
        pull_number: target.number,
        per_page: 100,
        ...deadline,
    });
}
async function earlierReviews(octokit, target, deadline) {
    const [identity, reviews] = await Promise.all([
        tokenIdentity(octokit, deadline),
        listReviews(octokit, target, deadline),
    ]);
    const earlier = reviews.flatMap((review) => {
        const body = review.body ?? '';
        const mark = reviewMarkOf(body);
        return review.user?.login === identity &&
            review.commit_id === target.sha &&
            mark?.key === target.key &&
            !body.includes(REPLACED_NOTE)
            ? [{ id: review.id, url: review.html_url, body, part: mark.part }]
            : [];
    });
    return { identity, earlier, listed: new Set(reviews.map((review) => review.id)) };
}
const REPLACED_NOTE = '> [!NOTE]\n> A newer review of this commit replaces this one';
async function markReplaced(octokit, target, earlier, newer, log) {
    const link = safeHttpUrl(newer);
    for (const review of earlier) {
        const note = `${REPLACED_NOTE}${link ? `: [the newer review](${link})` : ''}.\n\n`;
        const [marker = '', ...rest] = review.body.split('\n');
        try {
            await withRetries((deadline) => octokit.rest.pulls.updateReview({
                owner: target.owner,
                repo: target.repo,
                pull_number: target.number,
                review_id: review.id,
                body: clipBody(`${marker}\n${note}${rest.join('\n')}`),
                ...deadline,
            }));
        }
        catch (error) {
            log.warning(`GitHub: could not mark the earlier review ${review.url} as replaced (${reasonOf(error)}).${failureHint(error, REVIEW_PERMISSION)}`);
        }
    }
}

;// CONCATENATED MODULE: ./src/github/keyed-comment.ts







function keyedMarkerOf(body) {
    const run = parseMarker(body);
    if (run) {
        if (run.reply || run.key === undefined)
            return undefined;
        return { kind: 'run', key: run.key, newestStart: run.runs[0]?.startedAt };
    }
    const set = parseSetMarker(body);
    if (set)
        return { kind: 'set', key: set.key, newestStart: set.sets[0]?.startedAt };
    const approval = parseApprovalMarker(body);
    return approval && { kind: 'approval', key: approval.key };
}
function newerOtherKind(marker, kind, startedAt) {
    if (marker === undefined || marker.kind === kind || marker.newestStart === undefined)
        return false;
    return Date.parse(marker.newestStart) > Date.parse(startedAt);
}
function keyHistoryOf(body, key) {
    const run = parseMarker(body);
    if (run)
        return run.key === key ? { runs: run.runs, sets: run.sets ?? [] } : NO_HISTORY;
    const set = parseSetMarker(body);
    return set?.key === key ? { runs: set.runs ?? [], sets: set.sets } : NO_HISTORY;
}
const NO_HISTORY = { runs: [], sets: [] };
function ownBody(comment) {
    return comment.user?.login === comment.me ? (comment.body ?? '') : undefined;
}
function reportOf(comment) {
    const own = ownBody(comment);
    if (own === undefined)
        return { report: comment, write: (body) => body };
    const { approval, rest } = splitApproval(own);
    return {
        report: { ...comment, body: rest },
        write: (body) => joinApproval(approval?.section, body),
    };
}
class KeyedComment {
    comments;
    #options;
    #rendering;
    #writes = new NewestWrites(({ shown, final }) => this.#writeOrRetry(shown, final));
    #commentId;
    #lastShown;
    #concurrentStep = false;
    #overtaken = false;
    #joinedFrom;
    #alone = false;
    #concurrentWith = [];
    constructor(octokit, thread, options, rendering) {
        this.comments = new OwnComments(octokit, thread);
        this.#options = options;
        this.#rendering = rendering;
        this.#commentId = options.commentId;
    }
    get commentId() {
        return this.#commentId;
    }
    show(shown, as = JSON.stringify(shown), final = false) {
        if (as === this.#lastShown)
            return;
        this.#lastShown = as;
        this.#writes.push({ shown, final }, final);
    }
    async settled(maxMs = timing/* GITHUB_LIMITS */.f_.settleMs) {
        await this.#writes.settle(maxMs, this.#options.log, `the comment on ${this.comments.where()}`);
    }
    warn(what, error) {
        const [where, reason] = [this.comments.where(), reasonOf(error)];
        this.#options.log.warning(this.#rendering.kind === 'run'
            ? `GitHub: ${what} on ${where} (${reason}). The run is not affected.`
            : `GitHub: ${what} on ${where} (${reason}). The runs are not affected.`);
    }
    async keyed() {
        return (await this.comments.list())
            .filter((comment) => keyedMarkerOf(comment.body ?? '')?.key === this.#options.key)
            .sort((a, b) => a.id - b.id);
    }
    async #writeOrRetry(shown, final) {
        try {
            await this.#write(shown, final);
        }
        catch (error) {
            const retryIn = retryableRefusal(error);
            if (retryIn === undefined || this.#writes.stopped) {
                return this.warn('could not update the comment', error);
            }
            if (retryIn > 0)
                await new Promise((resolve) => setTimeout(resolve, retryIn));
            const shorter = this.#rendering.shorter;
            try {
                if (!this.#writes.stopped)
                    await this.#write(shorter ? shorter(shown) : shown, final);
            }
            catch (retryError) {
                const what = shorter ? ', even with a shorter text' : '';
                this.warn(`could not update the comment${what}`, retryError);
            }
        }
    }
    async #write(shown, final) {
        if (this.#overtaken)
            return;
        if (this.#commentId === undefined && !this.#options.reply) {
            const [oldest] = await this.keyed();
            if (oldest)
                this.#choose(oldest.id);
        }
        if (this.#commentId === undefined)
            return await this.#create(shown, final);
        if (!(await this.#update(shown, final)))
            await this.#create(shown, final);
    }
    async #create(shown, final) {
        const created = await this.comments.create(this.#rendering.compose(shown));
        if (this.#options.reply)
            return this.#choose(created);
        const keyed = await this.keyed();
        const [oldest] = keyed;
        if (keyed.length > 1)
            this.#concurrentStep = true;
        this.#concurrentWith = keyed.flatMap((c) => (c.id === created ? [] : [c.body ?? '']));
        if (!oldest || oldest.id === created)
            return this.#choose(created);
        this.#options.log.info(`Another step made a comment for "${this.#options.key}" at the same time; keeping the older one.`);
        this.#joinedFrom = created;
        this.#choose(oldest.id);
        const joined = await this.#update(shown, final).catch(async (error) => {
            await this.comments.delete(created);
            throw error;
        });
        if (!joined)
            return this.#choose(created);
        await this.comments.delete(created);
    }
    async #update(shown, final = false) {
        let current = await this.#readChosen();
        if (!current)
            return false;
        let writes = 0;
        let looks = 0;
        for (;;) {
            const { report, write } = reportOf(current);
            const body = this.#overtakenBy(current, shown)
                ? undefined
                : this.#rendering.rewrite(report, shown);
            if (body === undefined)
                return this.#noteOvertaken();
            const written = write(body);
            await this.comments.update(this.#commentId ?? 0, written);
            writes += 1;
            const lookUntil = Date.now() + timing/* COMMENT_OUTLAST_MS */.Sl;
            const readBack = this.#rendering.readBack;
            if (!readBack)
                return true;
            for (;;) {
                current = await this.#readChosen();
                if (!current)
                    return true;
                const seen = readBack(current, shown, this.#concurrentStep);
                if (seen === 'rewrite')
                    break;
                if (this.#writes.stopped || this.#writes.waiting)
                    return true;
                if (final && (this.#concurrentStep || this.#rendering.sharedEnd?.(shown) === true)) {
                    if (await this.#outlasts(current, written, shown))
                        return true;
                    if (Date.now() >= lookUntil)
                        return true;
                }
                else if (seen === 'done' || looks >= timing/* COMMENT_RECHECK_PAUSES_MS */.t_.length) {
                    return true;
                }
                const pause = timing/* COMMENT_RECHECK_PAUSES_MS */.t_[Math.min(looks, timing/* COMMENT_RECHECK_PAUSES_MS */.t_.length - 1)];
                await new Promise((resolve) => setTimeout(resolve, pause));
                looks += 1;
            }
            if (writes >= keyed_comment_MAX_WRITES)
                return true;
        }
    }
    async #outlasts(current, written, shown) {
        if (this.#concurrentStep && !this.#alone) {
            const others = (await this.keyed()).filter((comment) => comment.id !== this.#commentId && comment.id !== this.#joinedFrom);
            if (others.length > 0)
                return false;
            this.#alone = true;
        }
        if (ownBody(current) !== written)
            return true;
        return !(this.#rendering.othersGoing?.(current, this.#concurrentWith, shown) ?? false);
    }
    #overtakenBy(current, shown) {
        const own = ownBody(current);
        if (own === undefined)
            return false;
        const { kind } = this.#rendering;
        return newerOtherKind(keyedMarkerOf(own), kind, this.#rendering.startedAt(shown));
    }
    #noteOvertaken() {
        if (!this.#overtaken) {
            this.#overtaken = true;
            this.#options.log.info(`A newer step with the key "${this.#options.key}" shows in the comment now; this ${this.#rendering.kind}'s outcome is in its job summary.`);
        }
        return true;
    }
    async #readChosen() {
        const read = await this.comments.read(this.#commentId ?? 0);
        if (!read)
            this.#commentId = undefined;
        return read;
    }
    #choose(commentId) {
        if (this.#commentId === commentId)
            return;
        this.#commentId = commentId;
        this.#options.onCommentChosen?.(commentId);
    }
}
const keyed_comment_MAX_WRITES = 3;

;// CONCATENATED MODULE: ./src/github/keyed-run-comment.ts






class ThreadComment {
    #comment;
    #options;
    #now;
    #firstSeen = new Map();
    #head;
    #takenFrom;
    constructor(octokit, thread, options) {
        this.#options = options;
        this.#now = options.now ?? Date.now;
        this.#comment = new KeyedComment(octokit, thread, { ...options, reply: options.mode === 'reply' }, {
            kind: 'run',
            startedAt: ({ run }) => this.#startedAt(run),
            compose: ({ run, context }) => renderComment(run, this.#marker([this.#record(run, context)]), context),
            rewrite: (current, shown) => this.#rewrite(current, shown),
            shorter: ({ run, context }) => ({ run, context: { ...context, short: true } }),
            readBack: (current, shown, concurrentStep) => this.#readBack(current, shown, concurrentStep),
            sharedEnd: ({ context }) => context.outcome?.ending.kind === 'superseded' || this.#takenFrom === 'going',
            othersGoing: (current, others, shown) => this.#othersGoing(current, others, shown),
        });
    }
    static open(octokit, thread, options) {
        return new ThreadComment(octokit, thread, options);
    }
    async findRun() {
        try {
            let found;
            for (const { comment, marker } of await this.#trustedMarkers()) {
                if (this.#options.name !== undefined && marker.name !== this.#options.name)
                    continue;
                const at = Date.parse(marker.runs[0]?.startedAt ?? comment.created_at);
                if (!found || at >= found.at)
                    found = { runId: marker.runId, at };
            }
            return found?.runId;
        }
        catch (error) {
            this.#comment.warn('could not read the thread for an earlier run', error);
            return undefined;
        }
    }
    workOn(head) {
        this.#head = head;
    }
    async headOf(runId) {
        try {
            const records = (await this.#trustedMarkers())
                .filter(({ marker }) => marker.key === this.#options.key)
                .flatMap(({ marker }) => marker.runs.filter((record) => record.runId === runId));
            return records.find((record) => record.head !== undefined)?.head;
        }
        catch (error) {
            this.#comment.warn('could not read the thread for the head a run works on', error);
            return undefined;
        }
    }
    show(run, context = {}) {
        const full = { ...context, workflowRun: this.#options.workflowRun };
        if (!this.#firstSeen.has(run.run_id)) {
            this.#firstSeen.set(run.run_id, new Date(this.#now()).toISOString());
        }
        this.#comment.show({ run, context: full }, JSON.stringify(partsOf(run, { runs: [], sets: [] }, full)), context.outcome !== undefined);
    }
    async settled(maxMs) {
        await this.#comment.settled(maxMs);
    }
    #rewrite(current, { run, context }) {
        const own = ownBody(current);
        const trusted = own === undefined ? undefined : parseMarker(own);
        const earlier = own === undefined ? undefined : keyHistoryOf(own, this.#options.key);
        const shown = earlier?.runs.find((record) => record.runId === run.run_id);
        if (context.outcome?.ending.kind === 'handed-over' && shown && !this.#wrote(shown)) {
            return undefined;
        }
        this.#noteTakenFrom(trusted, run.run_id);
        const runs = mergeRuns(earlier?.runs ?? [], this.#record(run, context));
        const marker = this.#marker(runs, trusted, earlier?.sets);
        return runs[0]?.runId === run.run_id || !trusted
            ? renderComment(run, marker, context)
            : spliceComment(current.body ?? '', marker);
    }
    #readBack(current, { run, context }, concurrentStep) {
        const marker = this.#trusted(current);
        const shown = marker?.runs.find((r) => r.runId === run.run_id);
        const wanted = this.#record(run, context);
        if (shown?.state !== wanted.state || shown.outcome !== wanted.outcome)
            return 'rewrite';
        const shared = concurrentStep ||
            marker?.runs[0]?.runId !== run.run_id ||
            marker.runs.some((r) => r.runId !== run.run_id && !r.outcome && !isTerminal(r.state)) ||
            context.outcome?.ending.kind === 'superseded';
        return shared ? 'look' : 'done';
    }
    #noteTakenFrom(marker, runId) {
        const record = marker?.runs.find((r) => r.runId === runId);
        if (!record || this.#wrote(record) || this.#takenFrom === 'ended')
            return;
        this.#takenFrom = record.outcome ? 'ended' : 'going';
    }
    #wrote(record) {
        return record.head === this.#head && record.workflowRun === this.#options.workflowRun;
    }
    #othersGoing(current, others, shown) {
        const marker = this.#trusted(current);
        if (!marker)
            return false;
        const { run, context } = shown;
        this.#noteTakenFrom(marker, run.run_id);
        if (this.#takenFrom === 'going')
            return true;
        const ending = context.outcome?.ending;
        if (ending?.kind === 'superseded') {
            const newer = marker.runs.find((r) => r.runId === ending.newerRunId);
            if (!newer?.outcome)
                return true;
        }
        return others.some((body) => {
            const run = parseMarker(body);
            if (run)
                return marker.runs.some((r) => r.runId === run.runId && !r.outcome);
            return parseSetMarker(body) !== undefined && marker.sets?.[0]?.outcome === undefined;
        });
    }
    #trusted(comment) {
        const own = ownBody(comment);
        return own === undefined ? undefined : parseMarker(own);
    }
    #startedAt(run) {
        return this.#firstSeen.get(run.run_id) ?? new Date(this.#now()).toISOString();
    }
    #record(run, context) {
        const { workflowRun, outcome } = context;
        return recordOf(run, {
            startedAt: this.#startedAt(run),
            workflowRun,
            ending: outcome?.ending,
            head: this.#head,
        });
    }
    #marker(runs, earlier, sets) {
        return {
            runId: runs[0]?.runId ?? '',
            step: this.#options.step,
            key: this.#options.key,
            name: this.#options.name ?? earlier?.name,
            reply: this.#options.mode === 'reply' || earlier?.reply || undefined,
            runs,
            ...(sets?.length ? { sets } : {}),
        };
    }
    async #trustedMarkers() {
        return (await this.#comment.comments.list()).flatMap((comment) => {
            const marker = parseMarker(comment.body ?? '');
            return marker ? [{ comment, marker }] : [];
        });
    }
}

;// CONCATENATED MODULE: ./src/github/keyed-set-comment.ts





class SetComment {
    #comment;
    #options;
    #startedAt;
    constructor(octokit, thread, options) {
        this.#options = options;
        this.#startedAt = new Date((options.now ?? Date.now)()).toISOString();
        this.#comment = new KeyedComment(octokit, thread, { ...options, reply: false }, {
            kind: 'set',
            startedAt: () => this.#startedAt,
            compose: (shown) => composeSetComment(this.#marker([this.#record(shown)]), shown.body),
            rewrite: (current, shown) => this.#rewrite(current, shown),
        });
    }
    async markStopped(note) {
        await this.#rewriteChosen((own) => {
            const marker = parseSetMarker(own);
            const ours = marker?.sets[0];
            if (!marker || ours?.set !== this.#options.set || ours.outcome)
                return undefined;
            const headline = `### ${OUTCOME_RECORDS.interrupted.icon} Cloud agent tasks: interrupted`;
            const body = setBodyOf(own).replace(/^### \u23f3 Cloud agent tasks: [^\n]*/, () => `${headline}\n\n> [!WARNING]\n> ${note}`);
            const sets = [{ ...ours, outcome: 'interrupted' }, ...marker.sets.slice(1)];
            return composeSetComment(this.#marker(sets, marker.runs), body);
        });
    }
    async showHandedOverEnd(shown) {
        await this.#rewriteChosen((own) => {
            const marker = parseSetMarker(own);
            if (marker?.key !== this.#options.key)
                return undefined;
            const at = marker.sets.findIndex((record) => record.set === this.#options.set);
            const ours = marker.sets[at];
            if (!ours || (ours.outcome !== undefined && ours.outcome !== 'started'))
                return undefined;
            const { outcome, done, total } = shown;
            const sets = marker.sets.map((record, index) => index === at ? { ...record, outcome, done, total } : record);
            const body = at === 0 ? shown.body : setBodyOf(own);
            return composeSetComment({ ...marker, sets }, body);
        });
    }
    async #rewriteChosen(rewrite) {
        const commentId = this.#comment.commentId;
        try {
            const current = commentId ? await this.#comment.comments.read(commentId) : undefined;
            const parts = current && reportOf(current);
            const own = parts && ownBody(parts.report);
            const body = own === undefined ? undefined : rewrite(own);
            if (body !== undefined && parts) {
                await this.#comment.comments.update(commentId ?? 0, parts.write(body));
            }
        }
        catch (error) {
            this.#comment.warn('could not update the comment', error);
        }
    }
    show(shown) {
        this.#comment.show(shown, JSON.stringify(shown), shown.outcome !== undefined);
    }
    async settled(maxMs) {
        await this.#comment.settled(maxMs);
    }
    #rewrite(current, shown) {
        const own = ownBody(current);
        const earlier = own === undefined ? undefined : keyHistoryOf(own, this.#options.key);
        const sets = mergeSets(earlier?.sets ?? [], this.#record(shown));
        if (sets[0]?.set !== this.#options.set)
            return undefined;
        return composeSetComment(this.#marker(sets, earlier?.runs), shown.body);
    }
    #record(shown) {
        return {
            set: this.#options.set,
            outcome: shown.outcome,
            done: shown.done,
            total: shown.total,
            workflowRun: safeHttpUrl(this.#options.workflowRun),
            startedAt: this.#startedAt,
            ...(shown.handedOff?.length ? { handedOff: shown.handedOff } : {}),
        };
    }
    #marker(sets, runs) {
        return {
            key: this.#options.key,
            step: this.#options.step,
            sets,
            ...(runs?.length ? { runs } : {}),
        };
    }
}

;// CONCATENATED MODULE: ./src/github/setup.ts










async function openThreadComment(github, context, log, comment = {}) {
    if (!context.hasToken)
        return undefined;
    if (context.thread.kind === 'none') {
        log.info(`No comment thread: ${context.thread.reason}. Going on without one.`);
        return undefined;
    }
    return ThreadComment.open(await context.client(), context.thread.thread, {
        step: context.step,
        key: github.key,
        mode: 'keyed',
        workflowRun: context.workflowRun,
        log,
        ...comment,
    });
}
async function openSetComment(github, context, log, comment) {
    if (!github.comment || !context.hasToken)
        return undefined;
    if (context.thread.kind === 'none') {
        log.info(`No comment thread: ${context.thread.reason}. Going on without one.`);
        return undefined;
    }
    return new SetComment(await context.client(), context.thread.thread, {
        step: context.step,
        key: github.key,
        workflowRun: context.workflowRun,
        log,
        ...comment,
    });
}
async function resolveTarget(target, comment, log) {
    if (target.kind !== 'continue')
        return target;
    const runId = await comment?.findRun();
    if (runId) {
        log.info(`continue_run: this thread's run is ${runId}; sending it the message as a follow-up.`);
        return { kind: 'existing', runId, followup: target.message };
    }
    log.info('continue_run: no earlier run on this thread; creating one.');
    return { kind: 'create', request: target.request };
}
async function mayTalkToAgent(github, context, log) {
    const admission = await admitAuthor(await context.client(), context.repository ?? { owner: '', repo: '' }, eventAuthorOf(context.event), github);
    if (admission.admitted) {
        log.info(`continue_run: acting on it: ${admission.reason}.`);
        return true;
    }
    log.info(`continue_run: not acting on it: ${admission.reason}. Nothing was started.`);
    return false;
}
const setup_SHA = /^[0-9a-f]{40}$/;
async function resolveWorkCommit(context, log) {
    const { repository, pullRequest: number } = context;
    const pullRequest = number !== undefined && repository ? { ...repository, number } : undefined;
    if (context.eventHeadSha)
        return { sha: context.eventHeadSha, pullRequest };
    if (pullRequest && context.hasToken) {
        const head = await currentHead(context, pullRequest, log);
        if (head)
            return { sha: head, pullRequest };
    }
    return context.sha ? { sha: context.sha } : undefined;
}
async function currentHead(context, pullRequest, log, deadlineMs = timing/* GITHUB_CALL_DEADLINE_MS */.vt) {
    try {
        const octokit = await context.client();
        const { data } = await octokit.rest.pulls.get({
            owner: pullRequest.owner,
            repo: pullRequest.repo,
            pull_number: pullRequest.number,
            ...withDeadline(deadlineMs),
        });
        return setup_SHA.test(data.head.sha) ? data.head.sha : undefined;
    }
    catch (error) {
        log.warning(`GitHub: could not read the head of pull request #${pullRequest.number} (${reasonOf(error)}). The run is not affected.`);
        return undefined;
    }
}
async function headMovedNote(context, commit, log) {
    if (!commit?.pullRequest || !context.hasToken)
        return undefined;
    const head = await currentHead(context, commit.pullRequest, log, timing/* HEAD_MOVED_DEADLINE_MS */.$$);
    return head ? staleHeadNote(commit.sha, head) : undefined;
}
async function openCommitStatus(github, context, commit, log) {
    if (!github.commitStatus || !context.hasToken)
        return undefined;
    if (!commit || !context.repository) {
        log.warning('commit_status: no commit to set a status on (no pull request head, no GITHUB_SHA).');
        return undefined;
    }
    return new CommitStatusReporter(await context.client(), { ...context.repository, sha: commit.sha, context: statusContext(github.key) }, log);
}
async function openCheckRun(github, context, commit, log, record) {
    if (!commit || !context.repository) {
        log.warning('check_run: no commit to report on (no pull request head, no GITHUB_SHA).');
        return undefined;
    }
    return CheckRunReporter.open(await context.client(), { ...context.repository, sha: commit.sha, key: github.key }, log, context.workflowRun, record);
}
async function adoptCheckRun(github, context, known, log) {
    const repository = context.repository ?? { owner: '', repo: '' };
    return CheckRunReporter.adopt(await context.client(), { ...repository, key: github.key }, known, log);
}
async function postPullRequestReview(github, context, commit, review, run, log) {
    if (!commit?.pullRequest) {
        log.warning('pull_request_review: this event is not about a pull request, so no review was posted; the review is in the structured_output output.');
        return;
    }
    await postReview(await context.client(), { ...commit.pullRequest, sha: commit.sha, key: github.key }, review, run, log);
}
async function openCommitSurfaces(github, checkRun, context, commit, log, state) {
    const status = await openCommitStatus(github, context, commit, log);
    if (status && commit)
        state.saveStatusSha(commit.sha);
    const checks = checkRun ? await openCheckRun(github, context, commit, log, state) : undefined;
    await checks?.id;
    return { status, checkRun: checks };
}
async function finishLeftCheckRun(github, context, saved, stopped, log) {
    const known = saved.checkRunId !== undefined ? { id: saved.checkRunId } : saved.checkRunLookup;
    if (!known)
        return;
    const checkRun = await adoptCheckRun(github, context, known, log);
    await checkRun.finish(saved.checkRunReport ? reportFromSaved(saved.checkRunReport) : stopped);
}

;// CONCATENATED MODULE: ./src/run/create.ts








const INVOCATION_KEY = 'gh_invocation';
function runTag(world, newId = external_node_crypto_namespaceObject.randomUUID, headSha, handoff = {}) {
    const invocation = newId();
    const candidates = {
        [INVOCATION_KEY]: invocation,
        [FORGE_KEY]: world.forge ?? world.projectForge ?? 'none',
        gh_repository: world.project,
        gh_run_id: world.runId,
        gh_run_attempt: world.runAttempt,
        gh_job: world.job,
        gh_step: world.action,
        gh_workflow: world.workflow,
        gh_head_sha: headSha,
        ...handoff,
    };
    const metadata = {};
    for (const [key, value] of Object.entries(candidates)) {
        if (value)
            metadata[key] = Buffer.from(value)
                .subarray(0, 256)
                .toString('utf8')
                .replace(/\uFFFD$/, '');
    }
    return { invocation, metadata };
}
const SET_KEY = STEP_KEYS.set;
function taskTag(set, index, newId = external_node_crypto_namespaceObject.randomUUID) {
    const invocation = newId();
    return {
        invocation,
        metadata: {
            ...set.metadata,
            [INVOCATION_KEY]: invocation,
            [SET_KEY]: set.invocation,
            [STEP_KEYS.task]: String(index),
        },
    };
}
class RunMayExistError extends Error {
    name = 'RunMayExistError';
}
async function createRunOnce(request, tag, deps) {
    const sentAt = deps.now();
    let created;
    try {
        const deadline = deps.deadline === undefined ? undefined : Math.max(deps.deadline, sentAt + timing/* MIN_REQUEST_MS */.Cl);
        created = await deps.client.createRun({ ...request, metadata: { ...tag.metadata } }, { deadline });
    }
    catch (error) {
        if (!mayHaveActed(error))
            throw error;
        return await recoverLostCreate(request, tag, sentAt, errorMessage(error), deps, error);
    }
    if (created.at_capacity) {
        deps.log.info(`The service is at capacity: run ${created.run_id} waits in its queue and starts when there is room.`);
    }
    return created;
}
async function recoverLostCreate(request, tag, sentAt, reason, deps, cause) {
    deps.log.warning(`The answer to the create request was lost (${reason}). Looking for the run it may have made, instead of creating a second one.`);
    const search = await searchForCreatedRun(tag.invocation, {
        ...deps,
        pausesMs: timing/* CREATE_LOOKUP */.qS.delaysMs,
        request,
        sentAt,
    });
    switch (search.kind) {
        case 'found':
            deps.log.info(`Found run ${search.run.run_id}, made by the lost create request; adopting it.`);
            return { run_id: search.run.run_id, state: search.run.state };
        case 'ambiguous':
            throw new RunMayExistError(`The create request's answer was lost (${reason}), and ${search.runIds.length} runs (${search.runIds.join(', ')}) match its request, so none can be proven to be this step's; none is adopted or cancelled. ${whereToFind(tag.invocation)}`, { cause });
        case 'none':
            throw new RunMayExistError(`The create request's answer was lost (${reason}), and the run it may have made was not found (${search.lastProblem}). The action never repeats a create whose outcome is unknown, so as not to start a run twice. ${whereToFind(tag.invocation)}`, { cause });
    }
}
async function searchForCreatedRun(invocation, deps) {
    let lastProblem = 'no run tagged with it is listed yet';
    for (const pauseMs of deps.pausesMs) {
        if (deps.deadline !== undefined && deps.now() + pauseMs >= deps.deadline) {
            lastProblem = `${lastProblem}; the time to look ran out`;
            break;
        }
        if (pauseMs > 0)
            await deps.sleep(pauseMs);
        const once = {
            timeoutMs: Math.min(timing/* CREATE_LOOKUP */.qS.requestMs, Math.max(1_000, (deps.deadline ?? Infinity) - deps.now())),
            maxRetries: 0,
            deadline: deps.deadline,
        };
        const client = {
            listRuns: (query) => deps.client.listRuns(query, once),
            iterateRuns: (query, options) => deps.client.iterateRuns(query, { ...options, ...once }),
        };
        let lookup;
        try {
            lookup = await lookUpInvocation(client, invocation, {
                request: deps.request,
                maxAgeMs: deps.sentAt === undefined ? undefined : deps.now() - deps.sentAt + timing/* CREATE_LOOKUP */.qS.slackMs,
            });
        }
        catch (error) {
            lastProblem = `the lookup failed: ${errorMessage(error)}`;
            deps.log.info(`Could not look for the run yet (${errorMessage(error)}).`);
            continue;
        }
        if (lookup.kind !== 'none')
            return lookup;
        lastProblem = 'no run tagged with it is listed yet';
    }
    return { kind: 'none', lastProblem };
}
function* steadyPauses(pauseMs) {
    yield 0;
    for (;;)
        yield pauseMs;
}
function whereToFind(invocation) {
    return `A run may nonetheless exist: it carries the metadata ${INVOCATION_KEY}=${invocation}. It is looked for again by that metadata and cancelled; if none is reported, search the runs for that metadata before starting another.`;
}
const FALLBACK_PAGES = 2;
async function lookUpInvocation(client, invocation, options = {}) {
    let listed;
    let servedAt;
    try {
        const answer = await client.listRuns({ metadata: { [INVOCATION_KEY]: invocation }, limit: 10 });
        listed = answer.runs;
        servedAt = answer.servedAt;
    }
    catch (error) {
        if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available')
            throw error;
        listed = [];
        const pages = client.iterateRuns({ sort_by: 'created_at', sort_order: 'desc', limit: 100 }, { maxPages: FALLBACK_PAGES });
        for await (const run of pages)
            listed.push(run);
        servedAt = options.request ? await serviceNow(client) : undefined;
    }
    const candidates = ownRuns(listed).filter((run) => isProvablyOurs(run, invocation, options, servedAt));
    const unique = [...new Map(candidates.map((run) => [run.run_id, run])).values()];
    if (unique.length === 0)
        return { kind: 'none' };
    if (unique.length === 1 && unique[0])
        return { kind: 'found', run: unique[0] };
    return { kind: 'ambiguous', runIds: unique.map((run) => run.run_id) };
}
async function serviceNow(client) {
    return (await client.listRuns({ limit: 1 })).servedAt;
}
function isProvablyOurs(run, invocation, options, servedAt) {
    const metadata = run.metadata;
    if (typeof metadata === 'object' && metadata !== null) {
        return metadata[INVOCATION_KEY] === invocation;
    }
    const { request, maxAgeMs } = options;
    if (!request || servedAt === undefined || maxAgeMs === undefined)
        return false;
    const createdAt = Date.parse(run.created_at ?? '');
    if (Number.isNaN(createdAt) || createdAt < servedAt - maxAgeMs)
        return false;
    return isSameRequest(run, request);
}
function isSameRequest(run, request) {
    if ((run.prompt ?? '') !== (request.prompt ?? ''))
        return false;
    if (request.title !== undefined && run.title !== request.title)
        return false;
    const config = request.config ?? {};
    const resolved = (run.agent_config ?? {});
    return Object.entries(config).every(([key, value]) => value === undefined || isDeepEqual(resolved[key], value));
}
function isDeepEqual(a, b) {
    if (a === b)
        return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
        return false;
    if (Array.isArray(a) !== Array.isArray(b))
        return false;
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    if (keysA.length !== keysB.length)
        return false;
    return keysA.every((key) => isDeepEqual(a[key], b[key]));
}
async function findSupersededRun(tag, deps) {
    const { gh_run_id: runId, gh_run_attempt: attempt, gh_job: job, gh_step: step } = tag.metadata;
    if (!runId || !job || !step || !(Number(attempt) > 1))
        return undefined;
    const { runs } = await deps.client.listRuns({
        metadata: {
            gh_run_id: runId,
            gh_run_attempt: String(Number(attempt) - 1),
            gh_job: job,
            gh_step: step,
        },
        limit: 10,
    });
    return ownRuns(runs)[0];
}

;// CONCATENATED MODULE: external "node:fs/promises"
const promises_namespaceObject = __lazyBuiltin("node:fs/promises");
;// CONCATENATED MODULE: ./src/agent/download.ts




async function downloadArtifacts(dir, plan, deps) {
    const written = new Map();
    if (plan.length === 0)
        return written;
    const root = await makeDownloadDir(dir, deps.roots);
    for (const entry of plan) {
        const shown = deps.safeForLog(entry.artifact.filepath ?? entry.artifact.name ?? '');
        if ('refused' in entry) {
            deps.warning(`Not downloading artifact "${shown}": ${entry.refused}; nothing was written.`);
            continue;
        }
        if (deps.signal.aborted)
            break;
        try {
            const bytes = await deps.fetchFile(entry.artifact, deps.signal);
            const path = await writeInside(root, dir, entry.path, bytes);
            written.set(entry.artifact, path);
            deps.info(`Downloaded artifact "${shown}" to ${path} (${bytes.byteLength} bytes).`);
        }
        catch (error) {
            const reason = deps.safeForLog(errorMessage(error));
            deps.warning(`Could not download artifact "${shown}": ${reason}`);
        }
    }
    return written;
}
async function makeDownloadDir(dir, roots) {
    const target = (0,external_node_path_namespaceObject.resolve)(dir);
    const root = roots
        .map((candidate) => (0,external_node_path_namespaceObject.resolve)(candidate))
        .find((candidate) => target === candidate || target.startsWith(candidate + external_node_path_namespaceObject.sep));
    if (root === undefined) {
        throw new Error(`${target} is outside the workspace and RUNNER_TEMP, where files may go`);
    }
    const parts = (0,external_node_path_namespaceObject.relative)(root, target).split(external_node_path_namespaceObject.sep).filter(Boolean);
    if (parts.some(isGitFolder))
        throw new Error(`${target} is inside .git, where no file may go`);
    let folder = await (0,promises_namespaceObject.realpath)(root);
    for (const part of parts) {
        folder = (0,external_node_path_namespaceObject.join)(folder, part);
        await plainFolder(folder);
    }
    return folder;
}
function isGitFolder(name) {
    return name.toLowerCase() === '.git';
}
async function plainFolder(folder) {
    await (0,promises_namespaceObject.mkdir)(folder).catch((error) => {
        if (error.code !== 'EEXIST')
            throw error;
    });
    const stats = await (0,promises_namespaceObject.lstat)(folder);
    if (!stats.isDirectory()) {
        throw new Error(`${folder} is not a plain folder (a link or a file); nothing was written`);
    }
}
async function writeInside(root, dir, path, bytes) {
    const parts = (0,external_node_path_namespaceObject.relative)(dir, path).split(external_node_path_namespaceObject.sep);
    const name = parts.pop() ?? '';
    let folder = root;
    for (const part of parts) {
        folder = (0,external_node_path_namespaceObject.join)(folder, part);
        await plainFolder(folder);
    }
    const temporary = (0,external_node_path_namespaceObject.join)(folder, `.download-${(0,external_node_crypto_namespaceObject.randomBytes)(6).toString('hex')}.part`);
    try {
        await (0,promises_namespaceObject.writeFile)(temporary, bytes, { flag: 'wx' });
        await (0,promises_namespaceObject.rename)(temporary, (0,external_node_path_namespaceObject.join)(folder, name));
    }
    finally {
        await (0,promises_namespaceObject.rm)(temporary, { force: true });
    }
    return (0,external_node_path_namespaceObject.join)(folder, name);
}

;// CONCATENATED MODULE: ./src/agent/work.ts





async function readConversation(runId, sources, log, signal, deadline) {
    try {
        return parseConversation(await sources.getConversation(runId, signal, deadline));
    }
    catch (error) {
        if (error instanceof NotFoundError) {
            log.info(`Run ${runId} has no conversation to read (404); the result output stays empty.`);
        }
        else if (error instanceof UnprocessableEntityError) {
            log.info(`The service cannot give run ${runId}'s conversation in its normalized form yet (422); the result output stays empty.`);
        }
        else {
            const reason = errorMessage(error);
            log.warning(`Could not read run ${runId}'s conversation: ${reason}. The outcome is unchanged.`);
        }
        return undefined;
    }
}
async function readAnswer(runId, sources, log, signal, read) {
    const conversation = read ?? (await readConversation(runId, sources, log, signal));
    const answer = conversation && finalAnswer(conversation);
    if (conversation && answer === undefined) {
        log.info(`Run ${runId}'s conversation has no message from the agent.`);
    }
    return answer;
}
async function collectAgentWork(run, options, sources, log, signal) {
    const readLog = options.quietAnswer ? { ...log, info: log.debug } : log;
    const answer = await readAnswer(run.run_id, sources, readLog, signal, options.conversation);
    const artifacts = parseArtifacts(run.artifacts);
    if (options.downloadPatterns.length === 0) {
        return { answer, artifacts, downloadedTo: new Map(), downloadDir: undefined };
    }
    const downloadDir = options.artifactsDir || defaultArtifactsDir(options.runnerTemp, run.run_id);
    const files = await downloadRunFiles(artifacts, downloadDir, options, sources, log, signal);
    return { answer, artifacts, ...files };
}
async function downloadRunFiles(artifacts, downloadDir, options, sources, log, signal) {
    const { artifactsToDownload } = await Promise.all(/* import() */[__nccwpck_require__.e(6), __nccwpck_require__.e(847)]).then(__nccwpck_require__.bind(__nccwpck_require__, 4847));
    const wanted = artifactsToDownload(artifacts, options.downloadPatterns);
    if (wanted.length === 0) {
        log.info('No file artifact of the run matches download_artifacts; nothing to download.');
    }
    try {
        const downloadedTo = await downloadArtifacts(downloadDir, planDownloads(downloadDir, wanted), {
            fetchFile: sources.fetchFile,
            warning: (message) => log.warning(message),
            info: (message) => log.info(message),
            safeForLog: log.safeForLog,
            signal,
            roots: [options.workspace, options.runnerTemp],
        });
        return { downloadedTo, downloadDir };
    }
    catch (error) {
        const reason = log.safeForLog(errorMessage(error));
        log.warning(`Could not download artifacts into ${downloadDir}: ${reason}. The outcome is unchanged.`);
        return { downloadedTo: new Map(), downloadDir };
    }
}

;// CONCATENATED MODULE: ./src/run/gather.ts






async function gatherAgentWork(outcome, deps) {
    if (!outcome.run || !OUTCOME_RECORDS[outcomeWordOf(outcome)].carriesAgentWork)
        return {};
    if (outcome.kind === 'handed-over')
        return {};
    const { settings, world, log } = deps;
    return collectAgentWork(outcome.run, {
        downloadPatterns: settings.downloadPatterns,
        artifactsDir: settings.artifactsDir,
        runnerTemp: world.runnerTemp,
        workspace: world.workspace,
        conversation: deps.conversation,
        quietAnswer: deps.quietAnswer,
    }, deps.sources, {
        info: (message) => log.info(message),
        warning: (message) => log.warning(message),
        debug: (message) => log.debug(message),
        safeForLog: safeForLog,
    }, withinWaits(deps.signal, deps.endBy));
}
function withinWaits(signal, endBy) {
    const leftMs = Math.max(0, Math.min(timing/* AGENT_WORK_DEADLINE_MS */.wL, endBy - Date.now()));
    return abortAfter(signal, leftMs);
}

;// CONCATENATED MODULE: ./src/agent/review-document.ts
const VERDICTS = ['approve', 'comment', 'request_changes'];
const MAX_TEXT = 20_000;
const REVIEW_SCHEMA = {
    type: 'object',
    required: ['summary', 'verdict', 'comments'],
    additionalProperties: false,
    properties: {
        summary: { type: 'string', maxLength: MAX_TEXT },
        verdict: { enum: [...VERDICTS] },
        comments: {
            type: 'array',
            maxItems: 500,
            items: {
                type: 'object',
                required: ['path', 'line', 'body'],
                additionalProperties: false,
                properties: {
                    path: { type: 'string', minLength: 1, maxLength: 1000 },
                    line: { type: 'integer', minimum: 1 },
                    start_line: { type: 'integer', minimum: 1 },
                    side: { enum: ['LEFT', 'RIGHT'] },
                    body: { type: 'string', minLength: 1, maxLength: MAX_TEXT },
                },
            },
        },
    },
};
const REVIEW_INSTRUCTION = [
    "Your result is a review of this pull request's changes. Put each remark you can tie to a",
    'changed line in `comments`: `path` relative to the repository root, `line` in the new version',
    '(`side` RIGHT, the default) or, for a removed line, in the old one (`side` LEFT); `start_line`',
    'for a range. `verdict` is `approve`, `comment` or `request_changes`; `summary` says why.',
].join('\n');

;// CONCATENATED MODULE: ./src/agent/structured-output.ts


const RESULT_FILE = 'result.json';
const ERRORS_SHOWN = 10;
const MAX_ERROR_CHARS = 300;
const MAX_DOCUMENT_DEPTH = 256;
async function compileOutputSchema(source) {
    const where = source.file ? ` (${source.file})` : '';
    const schema = await parseSchemaText(source, where);
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        throw new InputError(source.input, `must be a JSON Schema: an object${where}.`);
    }
    const Ajv2020 = mainExport(await Promise.all(/* import() */[__nccwpck_require__.e(457), __nccwpck_require__.e(210)]).then(__nccwpck_require__.t.bind(__nccwpck_require__, 2210, 23)));
    const addFormats = mainExport(await Promise.all(/* import() */[__nccwpck_require__.e(457), __nccwpck_require__.e(196)]).then(__nccwpck_require__.t.bind(__nccwpck_require__, 2815, 23)));
    const { RE2JS } = await __nccwpck_require__.e(/* import() */ 856).then(__nccwpck_require__.bind(__nccwpck_require__, 2856));
    const ajv = new Ajv2020({
        allErrors: true,
        strict: false,
        code: { regExp: linearRegExp(RE2JS) },
    });
    addFormats(ajv);
    if (!ajv.validateSchema(schema)) {
        throw new InputError(source.input, `is not a valid JSON Schema (draft 2020-12)${where}: ${metaSchemaError(ajv.errors ?? [], schema)}`);
    }
    let check;
    try {
        check = ajv.compile(schema);
    }
    catch (error) {
        throw new InputError(source.input, schemaProblem(error, where));
    }
    return {
        input: source.input === 'pull_request_review' ? 'pull_request_review' : 'output_schema',
        text: JSON.stringify(schema),
        validate: (document) => {
            const depth = depthBeyond(document, MAX_DOCUMENT_DEPTH);
            if (depth) {
                return [`/ is nested more than ${MAX_DOCUMENT_DEPTH} levels deep; flatten the document`];
            }
            try {
                return check(document) ? [] : describeErrors(check.errors ?? []);
            }
            catch (error) {
                return [structured_output_clip(`/ could not be validated (${errorMessage(error)})`)];
            }
        },
    };
}
class UnsupportedPattern extends Error {
    pattern;
    constructor(pattern, reason) {
        super(reason);
        this.pattern = pattern;
    }
}
function schemaProblem(error, where) {
    if (error instanceof UnsupportedPattern) {
        return (`has the pattern ${JSON.stringify(structured_output_clip(error.pattern))}${where}, which the action cannot ` +
            `check in a time linear in the text (${structured_output_clip(error.message)}). Lookaheads and ` +
            'backreferences are not supported: write the pattern without them.');
    }
    return `is not a valid JSON Schema (draft 2020-12)${where}: ${asSentence(structured_output_clip(errorMessage(error)))}`;
}
function metaSchemaError(errors, schema) {
    const [first] = errors;
    if (!first)
        return 'the schema does not validate against the meta-schema.';
    const at = first.instancePath || '/';
    const value = valueAt(schema, first.instancePath);
    const quoted = value === undefined ? 'the value' : clip(JSON.stringify(value) ?? String(value), 80);
    const allowed = first.params.allowedValues;
    const choices = Array.isArray(allowed) ? ` (${clip(allowed.join(', '), 120)})` : '';
    return asSentence(`at ${at}, ${quoted} ${first.message ?? 'is invalid'}${choices}`);
}
function valueAt(document, pointer) {
    let value = document;
    for (const raw of pointer.split('/').slice(1)) {
        if (typeof value !== 'object' || value === null)
            return undefined;
        const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        value = value[key];
    }
    return value;
}
function linearRegExp(RE2JS) {
    const engine = (pattern, flags) => {
        let compiled;
        try {
            compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.LOOKBEHINDS);
        }
        catch (error) {
            throw new UnsupportedPattern(pattern, errorMessage(error));
        }
        return {
            test: (text) => compiled.test(text),
            toString: () => `/${pattern}/${flags}`,
        };
    };
    return Object.assign(engine, { code: 'RE2JS' });
}
function depthBeyond(document, limit) {
    const pending = [{ value: document, depth: 0 }];
    for (let next = pending.pop(); next; next = pending.pop()) {
        if (typeof next.value !== 'object' || next.value === null)
            continue;
        if (next.depth >= limit)
            return true;
        for (const child of Object.values(next.value)) {
            pending.push({ value: child, depth: next.depth + 1 });
        }
    }
    return false;
}
function mainExport(namespace) {
    const value = namespace.default;
    return typeof value === 'function' ? value : value.default;
}
async function parseSchemaText(source, where) {
    try {
        return JSON.parse(source.text);
    }
    catch {
    }
    const { parse } = await __nccwpck_require__.e(/* import() */ 815).then(__nccwpck_require__.t.bind(__nccwpck_require__, 8815, 19));
    try {
        return parse(source.text, { maxAliasCount: 100 });
    }
    catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new InputError(source.input, `is neither JSON nor YAML${where}: ${structured_output_clip(reason ?? '')}`);
    }
}
function describeErrors(errors) {
    const lines = errors.slice(0, ERRORS_SHOWN).map((error) => {
        const at = error.instancePath || '/';
        const extra = error.keyword === 'additionalProperties'
            ? ` (${String(error.params.additionalProperty)})`
            : error.keyword === 'enum'
                ? ` (${JSON.stringify(error.params.allowedValues)})`
                : '';
        return structured_output_clip(`${at} ${error.message ?? 'is invalid'}${extra}`);
    });
    if (errors.length > ERRORS_SHOWN)
        lines.push(`\u2026 and ${errors.length - ERRORS_SHOWN} more`);
    return lines;
}
function outputInstruction(schema) {
    return [
        'When you are done, end your final message with your result as one JSON document in a',
        `\`\`\`json fenced block (or upload it as a file named ${RESULT_FILE}). It must validate`,
        'against this JSON Schema (draft 2020-12):',
        '```json',
        schema.text,
        '```',
    ].join('\n');
}
function requestWithInstruction(request, instruction) {
    const title = request.title ?? titleOf(request.prompt);
    const prompt = request.prompt ? `${request.prompt}\n\n${instruction}` : instruction;
    return { ...request, ...(title ? { title } : {}), prompt };
}
const MAX_TITLE_CHARS = 100;
function titleOf(prompt) {
    const line = prompt
        ?.split('\n', 20)
        .map((text) => text.trim())
        .find((text) => text !== '');
    return line ? clip(line, MAX_TITLE_CHARS - 1) : undefined;
}
function correctionRequest(errors) {
    return [
        'Your result does not validate against the JSON Schema you were given:',
        ...errors.map((error) => `- ${error}`),
        '',
        'Reply with the corrected document as one ```json fenced block at the end of your message.',
    ].join('\n');
}
function findDocument(answer, resultFile) {
    const block = answer === undefined ? undefined : lastJsonBlock(answer);
    if (block !== undefined)
        return parseCandidate(block, "the final message's last json block");
    if (resultFile !== undefined)
        return parseCandidate(resultFile, `the file ${RESULT_FILE}`);
    return {
        kind: 'unreadable',
        problem: `the final message has no \`\`\`json block, and there is no file ${RESULT_FILE}`,
    };
}
function parseCandidate(text, from) {
    try {
        return { kind: 'found', document: JSON.parse(text), from };
    }
    catch (error) {
        const reason = errorMessage(error);
        return { kind: 'unreadable', problem: `${from} is not JSON (${structured_output_clip(reason)})` };
    }
}
function lastJsonBlock(text) {
    let last;
    let open;
    for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
        if (open) {
            const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
            if (close && close[0] === open.marker[0] && close.length >= open.marker.length) {
                if (open.json)
                    last = open.lines.join('\n');
                open = undefined;
            }
            else {
                open.lines.push(line);
            }
            continue;
        }
        const start = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)/.exec(line);
        if (start?.[1]) {
            open = { marker: start[1], json: start[2]?.toLowerCase() === 'json', lines: [] };
        }
    }
    if (open?.json)
        last = open.lines.join('\n');
    return last;
}
function structured_output_clip(text) {
    return clip(text, MAX_ERROR_CHARS - 1);
}

;// CONCATENATED MODULE: ./src/run/output.ts









async function checkDocument(run, corrections, deps) {
    const runId = run.run_id;
    const conversation = await deps.readConversation(runId);
    const answer = conversation && finalAnswer(conversation);
    let candidate = findDocument(answer, undefined);
    if (candidate.kind === 'unreadable') {
        const file = await readResultFile(parseArtifacts(run.artifacts), deps);
        if (file !== undefined)
            candidate = findDocument(undefined, file);
    }
    const errors = candidate.kind === 'found' ? deps.schema.validate(candidate.document) : [candidate.problem];
    if (errors.length === 0 && candidate.kind === 'found') {
        deps.log.info(`The agent's result validates against the schema (from ${candidate.from}).`);
        return { kind: 'valid', document: candidate.document, conversation };
    }
    const shown = errors.map((error) => safeForLog(error, 300)).join('; ');
    const remainingMs = deps.deadline - deps.now();
    if (corrections >= deps.retries || remainingMs <= 0) {
        const why = corrections >= deps.retries
            ? `No correction is left (output_retries: ${deps.retries})`
            : 'No time is left within the timeout input';
        deps.log.warning(`The agent's result does not validate: ${shown}. ${why}.`);
        const invalidOutput = { errors, corrections, input: deps.schema.input };
        return { kind: 'invalid', invalidOutput, conversation };
    }
    deps.log.warning(`The agent's result does not validate: ${shown}. Asking run ${safeForLog(runId)} for a corrected one (correction ${corrections + 1} of ${deps.retries}).`);
    const message = correctionRequest(errors);
    return { kind: 'correct', message, remainingMs, input: deps.schema.input, conversation };
}
async function readResultFile(artifacts, deps) {
    const file = artifacts.findLast((artifact) => artifact.type === 'FILE' &&
        artifact.artifactUid !== undefined &&
        (artifact.name === RESULT_FILE ||
            (artifact.filepath ?? '').replace(/\\/g, '/').split('/').pop() === RESULT_FILE));
    if (!file)
        return undefined;
    try {
        return await deps.readFile(file);
    }
    catch (error) {
        const reason = errorMessage(error);
        deps.log.warning(`Could not read the agent's ${RESULT_FILE}: ${safeForLog(reason)}`);
        return undefined;
    }
}
function reviewed(checked, reviewAsked) {
    const review = reviewAsked ? checked.document : undefined;
    const { outcome } = checked;
    if (!review || outcome.kind !== 'finished')
        return { outcome, review };
    return { outcome: { ...outcome, reviewVerdict: review.verdict }, review };
}
async function prepareOutput(settings) {
    if (settings.pullRequestReview) {
        const schema = await compileOutputSchema({
            input: 'pull_request_review',
            text: JSON.stringify(REVIEW_SCHEMA),
        });
        return { schema, instruction: `${REVIEW_INSTRUCTION}\n\n${outputInstruction(schema)}` };
    }
    if (!settings.schema)
        return undefined;
    const schema = await compileOutputSchema(settings.schema);
    return { schema, instruction: outputInstruction(schema) };
}
function withInstruction(target, instruction) {
    const add = (text) => (text ? `${text}\n\n${instruction}` : instruction);
    const titled = (request) => requestWithInstruction(request, instruction);
    switch (target.kind) {
        case 'create':
            return { ...target, request: titled(target.request) };
        case 'continue':
            return { ...target, message: add(target.message), request: titled(target.request) };
        case 'existing':
            return target.followup === undefined ? target : { ...target, followup: add(target.followup) };
    }
}
function documentCheck(request, from) {
    const { sources, log } = from;
    const bounded = () => withinWaits(from.signal, from.deadline + timing/* PAST_TIMEOUT_MS */.WP);
    const deps = {
        schema: request.schema,
        retries: from.retries,
        deadline: from.deadline,
        now: from.now,
        log,
        readConversation: (runId) => readConversation(runId, sources, log, bounded()),
        readFile: async (artifact) => Buffer.from(await sources.fetchFile(artifact, bounded())).toString('utf8'),
    };
    return (run, corrections) => checkDocument(run, corrections, deps);
}

;// CONCATENATED MODULE: ./src/model/run-outcome.ts





function outcomeOfRun(record, context) {
    const { run, end } = record;
    if (!run) {
        if (record.createError === undefined && record.invocation !== undefined) {
            return { kind: 'interrupted', run: undefined };
        }
        return { kind: 'not-started', createError: record.createError };
    }
    const { elapsedMs } = context;
    if (!end) {
        const ended = isTerminal(run.state);
        return ended ? { kind: 'finished', run, elapsedMs } : { kind: 'interrupted', run };
    }
    switch (end.kind) {
        case 'not-started':
            return { kind: 'interrupted', run };
        case 'started':
            return { kind: 'started', run };
        case 'terminal':
            return { kind: 'finished', run, elapsedMs, invalidOutput: record.invalidOutput };
        case 'handed-off':
            return { kind: 'blocked', run, passes: end.passes, question: end.question, elapsedMs };
        case 'cancelled': {
            const { cancel } = end;
            switch (end.cause) {
                case 'timeout':
                    return {
                        kind: 'timed-out',
                        run,
                        stateAtTimeout: end.stateBefore ?? run.state,
                        elapsedMs,
                        timeoutMs: context.timeoutMs,
                        cancel,
                    };
                case 'over-budget': {
                    const cost = costSince(treeCostOf(run, record.children), record.usedBefore);
                    return {
                        kind: 'over-budget',
                        run,
                        cost,
                        cap: crossedCap(cost, context.caps),
                        elapsedMs,
                        cancel,
                    };
                }
                case 'signal':
                case 'post':
                    return { kind: 'interrupted', run, cancel };
                case 'error':
                case 'pass-when':
                    return { kind: 'stopped', run, cause: end.cause, elapsedMs, cancel };
            }
        }
    }
}
const WORD_ONLY = { elapsedMs: 0, timeoutMs: 0, caps: [] };
function crossedCap(cost, caps) {
    const crossed = caps.find((cap) => {
        const spent = costIn(cost, cap.amount.unit);
        return isUnpriced(cost, cap.amount.unit) || (spent !== undefined && spent > cap.amount.value);
    });
    return crossed ?? caps[0] ?? { amount: { value: 0, unit: 'credits' }, input: 'max_credits' };
}
function outcomeWordOfRun(record) {
    const outcome = outcomeOfRun(record, WORD_ONLY);
    if (outcome.kind !== 'not-started')
        return outcomeWordOf(outcome);
    return outcome.createError === undefined ? 'not_started' : 'error';
}

;// CONCATENATED MODULE: ./src/run/steer.ts










const ACTIVE_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS'];
const NOT_STARTED = new Set(['QUEUED', 'PENDING', 'CLAIMED']);
function keyMetadataOf(metadata) {
    const picked = {};
    for (const key of [STEP_KEYS.repository, HANDOFF_KEYS.key, HANDOFF_KEYS.thread]) {
        const value = metadata[key];
        if (value)
            picked[key] = value;
    }
    return picked[STEP_KEYS.repository] && picked[HANDOFF_KEYS.key] ? picked : undefined;
}
async function activeRunsOfKey(client, keyMetadata, options) {
    const { runs } = await client.listRuns({ metadata: { ...keyMetadata }, state: ACTIVE_STATES, limit: 20, sort_by: 'created_at' }, options);
    return ownRuns(runs)
        .filter((run) => meaningOf(run.state) === 'active' &&
        Object.entries(keyMetadata).every(([key, value]) => run.metadata?.[key] === value))
        .sort((a, b) => Date.parse(b.created_at ?? '') - Date.parse(a.created_at ?? ''));
}
function needsInterrupt(run) {
    return !NOT_STARTED.has(run.state);
}
function isRefusedSteer(error) {
    return error instanceof ApiStatusError && error.status >= 400 && error.status < 500;
}
const STEERED_LINE = 'This is a newer request for the same work: new commits were pushed while you worked.';
function steeringMessage(prompt, heads, change) {
    const lines = [prompt, '', '---', STEERED_LINE];
    if (heads.now)
        lines.push(`- The new head: ${heads.now}`);
    if (heads.old)
        lines.push(`- The head you were working on: ${heads.old}`);
    if (change.kind === 'ahead' && change.commits.length > 0) {
        lines.push('- The commits since, oldest first:');
        for (const commit of change.commits.slice(-50)) {
            lines.push(`  - ${commit.sha.slice(0, 12)} ${clip(commit.title, 120)}`);
        }
        if (change.commits.length > 50)
            lines.push(`  - and ${change.commits.length - 50} earlier ones`);
    }
    lines.push('Stop what you were doing. Review or rework only what changed since the head you were working on, keep what still applies from your earlier work, and answer for the new head.');
    return lines.join('\n');
}
function fallbackLine(runId, why) {
    return `previous_run: steer: run ${safeForLog(runId)} cannot be steered (${why}); cancelling it and creating a new run.`;
}
class KeySteering {
    #source;
    #request;
    #keyMetadata;
    #host;
    #deps;
    constructor(step, host, deps) {
        this.#source = step.source;
        this.#request = step.request;
        this.#keyMetadata = keyMetadataOf(step.tags);
        this.#host = host;
        this.#deps = deps;
    }
    async steer(deadline) {
        const { client, log } = this.#deps;
        const keyMetadata = this.#keyMetadata;
        const key = keyMetadata?.[HANDOFF_KEYS.key] ?? '';
        const [candidate, ...newer] = keyMetadata
            ? (await activeRunsOfKey(client, keyMetadata, { deadline })).sort(byAge)
            : [];
        if (!candidate) {
            log.info(`previous_run: steer: no run of the key "${safeForLog(key, 200)}" is on its way on this thread; creating one.`);
            return undefined;
        }
        for (const run of newer) {
            log.info(`previous_run: steer: run ${safeForLog(run.run_id)} is a newer run of the same key than run ${safeForLog(candidate.run_id)}; cancelling it, so that the key has one run.`);
            await this.#cancelOther(run.run_id, deadline);
        }
        return await this.#steerRun(candidate, deadline);
    }
    async oneRunPerKey(own, deadline) {
        const found = await this.#olderRunOfKey(own, deadline, { listedOnly: true });
        if (!found)
            return own;
        return (await this.#giveWay(found, deadline, false)) ?? own;
    }
    async giveWayLate(run, deadline) {
        const found = await this.#olderRunOfKey(run, deadline, { listedOnly: false });
        return found && (await this.#giveWay(found, deadline, true));
    }
    async #olderRunOfKey(own, deadline, options) {
        const { client, log } = this.#deps;
        const keyMetadata = this.#keyMetadata;
        if (!keyMetadata || this.#deps.signal.aborted)
            return undefined;
        let runs;
        try {
            const quick = { deadline, timeoutMs: timing/* KEY_LOOK_MS */.Nv, maxRetries: 0, signal: this.#deps.signal };
            runs = await activeRunsOfKey(client, keyMetadata, quick);
        }
        catch (error) {
            log.debug(`Could not look for another run of the key: ${safeForLog(errorMessage(error))}`);
            return undefined;
        }
        const listedOwn = runs.find((run) => run.run_id === own.run_id);
        if (!listedOwn && options.listedOnly)
            return undefined;
        const mine = listedOwn ?? own;
        const oldest = runs.filter((run) => run.run_id !== own.run_id).sort(byAge)[0];
        if (!oldest || byAge(oldest, mine) > 0)
            return undefined;
        return { oldest, own: mine };
    }
    async #giveWay({ oldest, own }, deadline, late) {
        const [older, mine] = [safeForLog(oldest.run_id), safeForLog(own.run_id)];
        const shown = late ? ' (the list shows it only now)' : '';
        const newer = await this.#newerHeadOf(oldest);
        if (newer) {
            this.#deps.log.info(`previous_run: steer: run ${older} of the same key was created before this step's run ${mine}, by another step${shown}, and works on a newer head (${newer.slice(0, 12)}); cancelling run ${mine} and awaiting run ${older} as this step's run, so that the key has one run.`);
            await this.#cancelOther(own.run_id, deadline);
            this.#host.tracker.track(oldest.run_id);
            this.#host.record.runId = oldest.run_id;
            return oldest;
        }
        this.#deps.log.info(`previous_run: steer: run ${older} of the same key was created before this step's run ${mine}, by another step${shown}; steering it and cancelling run ${mine}, so that the key has one run.`);
        const steered = await this.#steerRun(oldest, deadline);
        if (!steered) {
            this.#host.tracker.keepOwn(own.run_id);
            this.#host.record.runId = own.run_id;
            return undefined;
        }
        await this.#cancelOther(own.run_id, deadline);
        return steered;
    }
    async #newerHeadOf(run) {
        const source = this.#source;
        const theirs = (await source.recordedHead(run.run_id).catch(() => undefined)) ??
            run.metadata?.[STEP_KEYS.headSha];
        if (!theirs || !source.head || theirs === source.head)
            return undefined;
        const change = await source.compare(source.head, theirs).catch(() => undefined);
        return change?.kind === 'ahead' ? theirs : undefined;
    }
    async #steerRun(candidate, deadline) {
        const { client, log } = this.#deps;
        const source = this.#source;
        const oldHead = (await source.recordedHead(candidate.run_id).catch(() => undefined)) ??
            candidate.metadata?.[STEP_KEYS.headSha];
        const change = oldHead && source.head
            ? await source.compare(oldHead, source.head)
            : { kind: 'unknown', why: 'a head is not known' };
        if (change.kind === 'not-ancestor') {
            const pushed = `the head it worked on (${oldHead?.slice(0, 12)}) is not an ancestor of ${source.head?.slice(0, 12)}: a force push`;
            return await this.#cancelInstead(candidate, pushed, deadline);
        }
        if (this.#deps.signal.aborted)
            return undefined;
        const interrupting = needsInterrupt(candidate);
        if (interrupting) {
            try {
                await client.interruptRun(candidate.run_id, { deadline });
            }
            catch (error) {
                if (isRefusedSteer(error)) {
                    const refused = `the service refused the interrupt: ${errorMessage(error)}`;
                    return await this.#cancelInstead(candidate, refused, deadline);
                }
                if (!mayHaveActed(error))
                    throw error;
                log.info(`previous_run: steer: the answer to the interrupt of run ${safeForLog(candidate.run_id)} was lost (${safeForLog(errorMessage(error))}); it may have stopped the run's turn, so the step sends it this step's work all the same.`);
            }
        }
        const message = steeringMessage(this.#request.prompt ?? '', { old: oldHead, now: source.head }, change);
        const refusal = await this.#host.followUp(candidate, message, deadline);
        if (refusal !== undefined) {
            const refused = `the service refused the follow-up: ${refusal}`;
            return await this.#cancelInstead(candidate, refused, deadline);
        }
        this.#host.record.runId = candidate.run_id;
        this.#deps.onSteered?.();
        const head = source.head ? `, on ${source.head.slice(0, 12)} now` : '';
        log.info(`previous_run: steer: ${interrupting ? 'interrupted run' : 'run'} ${safeForLog(candidate.run_id)} and sent it this step's work${head}; awaiting it as this step's run.`);
        return candidate;
    }
    async #cancelInstead(run, why, deadline) {
        this.#deps.log.info(fallbackLine(run.run_id, safeForLog(why, 500)));
        await this.#cancelOther(run.run_id, deadline);
        return undefined;
    }
    async #cancelOther(runId, deadline) {
        const { client, log } = this.#deps;
        logCancel(log, runId, await requestCancel(client, runId, { deadline }), 'previous_run');
    }
}
function byAge(a, b) {
    const created = Date.parse(a.created_at ?? '') - Date.parse(b.created_at ?? '');
    if (Number.isFinite(created) && created !== 0)
        return created;
    return a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0;
}

;// CONCATENATED MODULE: ./src/run/adopt.ts



async function adoptRun(target, deadline, host, deps) {
    const { runId, followup } = target;
    const { client, log, now } = deps;
    const bounded = () => ({ deadline: Math.max(deadline, now() + timing/* MIN_REQUEST_MS */.Cl) });
    const run = await getExistingRun(client, runId, bounded());
    log.info(`Run ${safeForLog(runId)} is ${safeForLog(run.state, 200)}.`);
    if (followup === undefined) {
        host.tracker.track(runId);
        host.record.runId = runId;
        return run;
    }
    if (deps.signal.aborted)
        return undefined;
    const refusal = await host.followUp(run, followup, deadline);
    if (refusal !== undefined) {
        throw new Error(`The follow-up (the followup input) to run ${safeForLog(runId)} was refused: ${safeForLog(refusal)} The run is left as it is.`, { cause: refusal });
    }
    host.record.runId = runId;
    return run;
}
async function getExistingRun(client, runId, options) {
    try {
        return await client.getRun(runId, options);
    }
    catch (error) {
        if (error instanceof NotFoundError) {
            throw new Error(`The run named by the run_id input (${safeForLog(runId)}) does not exist: ${error.message}`, { cause: error });
        }
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/run/followup.ts





function watchForNewPass(watch) {
    const since = watch.now();
    let settled = false;
    return (seen) => {
        if (settled)
            return false;
        if (seen.state !== watch.before.state) {
            settled = true;
            watch.onSettled?.('new-pass');
            return false;
        }
        if (watch.now() - since >= watch.graceMs) {
            settled = true;
            watch.onSettled?.('grace-over');
            return false;
        }
        return true;
    };
}
class FollowUps {
    #deps;
    #isStale;
    constructor(deps) {
        this.#deps = deps;
    }
    isStale(run) {
        return this.#isStale?.(run) ?? false;
    }
    async followUp(run, message, deadline) {
        const refusal = await this.send(run, message, deadline);
        return refusal === undefined ? undefined : errorMessage(refusal);
    }
    async send(run, message, deadline) {
        const { client, tracker, log, now } = this.#deps;
        const runId = run.run_id;
        tracker.followingUp(runId);
        try {
            await client.sendFollowup(runId, message, {
                deadline: Math.max(deadline, now() + timing/* MIN_REQUEST_MS */.Cl),
            });
            log.info(`Sent the follow-up to run ${safeForLog(runId)}.`);
        }
        catch (error) {
            const reason = errorMessage(error);
            if (!mayHaveActed(error)) {
                tracker.followupRefused();
                return error;
            }
            log.warning(`The answer to the follow-up to run ${safeForLog(runId)} was lost (${safeForLog(reason)}). It may have reached the run and restarted it, so the step awaits the run.`);
        }
        tracker.track(runId);
        if (!isTerminal(run.state)) {
            this.#isStale = undefined;
            return undefined;
        }
        this.#isStale = watchForNewPass({
            before: run,
            now,
            graceMs: this.#deps.graceMs,
            onSettled: (how) => {
                tracker.newPassSeen();
                if (how === 'grace-over') {
                    log.warning(`Run ${safeForLog(runId)} was never seen leaving ${safeForLog(run.state, 200)} after the follow-up; taking ${safeForLog(run.state, 200)} as its outcome.`);
                }
            },
        });
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/run/lines-and-lookups.ts






function surfaceRefusal(error, request) {
    const { harness, worker_host: workerHost } = request.config ?? {};
    if (!(error instanceof ApiStatusError) || ![400, 404, 422].includes(error.status))
        return error;
    if (!harness?.type && !workerHost)
        return error;
    const asked = [
        ...(harness?.type ? [`harness: ${harness.type}`] : []),
        ...(workerHost ? [`worker_host: ${workerHost}`] : []),
    ].join(', ');
    return new Error(`The service refused the run (${safeForLog(asked, 300)}): ${safeForLog(errorMessage(error), 1000)}`, { cause: error });
}
async function noteSupersededRun(tag, deps) {
    const { client, now, signal, log } = deps;
    const deadline = now() + timing/* SUPERSEDED_LOOKUP_TIMEOUT_MS */.LD;
    const quick = {
        listRuns: (query) => client.listRuns(query, {
            timeoutMs: timing/* SUPERSEDED_LOOKUP_TIMEOUT_MS */.LD,
            maxRetries: 0,
            deadline,
            signal,
        }),
    };
    try {
        const earlier = await findSupersededRun(tag, { client: quick });
        if (earlier) {
            log.info(`This attempt supersedes run ${safeForLog(earlier.run_id)} of the previous attempt (${safeForLog(earlier.state, 200)}).`);
        }
    }
    catch (error) {
        log.debug(`Could not look up the previous attempt's run: ${safeForLog(String(error))}`);
    }
}
function logStateChange(log, subject, run, { when, watched }) {
    const state = safeForLog(run.state, 200);
    switch (meaningOf(run.state)) {
        case 'blocked':
            if (watched)
                return log.info(`${subject} is BLOCKED (${when}): it waits for a person.`);
            return log.warning(`${subject} is BLOCKED (${when}): it waits for a person to answer or approve in the session` +
                `${run.session_link ? ` (${safeForLog(run.session_link, 500)})` : ''}. Nothing will happen until someone does; this step waits until its timeout.`);
        case 'unknown':
            return log.info(`${subject} is ${state} (${when}), a state this action does not know; waiting on.`);
        case 'active':
        case 'succeeded':
        case 'failed':
            return log.info(`${subject} is ${state} (${when}).`);
    }
}

;// CONCATENATED MODULE: ./src/run/lifecycle.ts
















class RunLifecycle {
    #spec;
    #deps;
    #starting = false;
    #lagNoted = false;
    #corrections = 0;
    #keySteering;
    #continuation;
    #followUps;
    #host;
    constructor(spec, deps) {
        this.#spec = spec;
        this.#deps = deps;
        const { steer: source, target } = spec;
        const graceMs = spec.newPassGraceMs ?? timing/* NEW_PASS_GRACE_MS */.Rc;
        const followUps = new FollowUps({ ...deps, graceMs });
        this.#followUps = followUps;
        this.#host = {
            record: spec.record,
            tracker: deps.tracker,
            followUp: (run, message, deadline) => followUps.followUp(run, message, deadline),
        };
        if (source && target.kind === 'create') {
            const { client, log, signal, onSteered } = deps;
            const step = { source, request: target.request, tags: spec.tag.metadata };
            this.#keySteering = new KeySteering(step, this.#host, { client, log, signal, onSteered });
        }
        const host = {
            record: spec.record,
            send: (run, message, deadline) => followUps.send(run, message, deadline),
        };
        if (spec.continueFrom && target.kind === 'create') {
            this.#continuation = new PullRequestContinuation(spec.continueFrom, host, deps);
        }
        else if (spec.continueRun && target.kind === 'create') {
            this.#continuation = new KnownRunContinuation(spec.continueRun, host, deps);
        }
    }
    get record() {
        return this.#spec.record;
    }
    get tracker() {
        return this.#deps.tracker;
    }
    get end() {
        return this.record.end;
    }
    get name() {
        return this.#spec.name;
    }
    get caps() {
        return this.#spec.caps ?? [];
    }
    get due() {
        return !this.#starting && this.end === undefined && this.record.startedAt === undefined;
    }
    get starting() {
        return this.#starting;
    }
    get inFlight() {
        return this.end === undefined && this.record.runId !== undefined && !this.tracker.deciding;
    }
    get watch() {
        return this.#deps.watch;
    }
    #subject(runId = this.record.runId ?? '') {
        const id = safeForLog(runId);
        return this.#spec.name ? `${this.#spec.name}: run ${id}` : `Run ${id}`;
    }
    async start(deadline) {
        if (this.#deps.signal.aborted)
            return this.#ended({ kind: 'not-started' });
        const record = this.record;
        record.startedAt = this.#deps.now();
        this.#starting = true;
        try {
            const { target } = this.#spec;
            const run = target.kind === 'create'
                ? await this.#create(target.request, deadline)
                : await adoptRun(target, deadline, this.#host, this.#deps);
            if (!run)
                return this.#ended({ kind: 'not-started' });
            record.run = run;
        }
        catch (error) {
            record.createError = errorMessage(error);
            record.createUnreachable = isUnreachableOrRefused(error);
            record.endedAt = this.#deps.now();
            this.#ended({ kind: 'not-started' });
            if (this.#spec.startFailure === 'throw')
                throw error;
            this.#deps.log.warning(`${this.#spec.name ?? 'The run'}: ${safeForLog(record.createError)}`);
            record.runMayExist = error instanceof RunMayExistError;
            if (!record.runMayExist)
                this.#settle();
            return;
        }
        finally {
            this.#starting = false;
        }
        if (this.#deps.signal.aborted)
            return;
        if (!this.#spec.wait) {
            this.#settle();
            this.#deps.log.info(`Not waiting (wait: false); ${this.#spec.name ? `${this.#spec.name}'s run` : 'run'} ${safeForLog(this.record.runId ?? '')} goes on without this step.`);
            return this.#ended({ kind: 'started' });
        }
        const run = this.record.run;
        if (run && isTerminal(run.state) && !this.#followUps.isStale(run))
            await this.#reachedTerminal(run, deadline);
    }
    async seen(run, deadline) {
        if (!this.inFlight || this.#followUps.isStale(run))
            return;
        const record = this.record;
        const before = record.run;
        record.run = run;
        const stateChanged = run.state !== before?.state;
        if (stateChanged) {
            const { log, now, watch } = this.#deps;
            const when = `after ${formatDuration(now() - (record.startedAt ?? now()))}`;
            logStateChange(log, this.#subject(run.run_id), run, { when, watched: watch !== undefined });
        }
        if (isTerminal(run.state))
            return this.#reachedTerminal(run, deadline);
        const steered = await this.#keySteering?.giveWayLate(run, deadline);
        if (steered) {
            this.record.run = steered;
            return;
        }
        const verdict = await this.#deps.watch?.afterPoll(run, stateChanged, this.#deps.signal, deadline);
        if (!verdict || verdict.kind === 'continue')
            return;
        this.record.handedOff = { passes: verdict.passes };
        this.#settle();
        this.#ended({ kind: 'handed-off', passes: verdict.passes, question: verdict.question });
    }
    readFailed(error) {
        const age = this.#deps.now() - (this.record.startedAt ?? this.#deps.now());
        const graceMs = this.#spec.target.kind === 'create' ? timing/* NEW_RUN_NOT_FOUND_GRACE_MS */.mv : 0;
        if (!(error instanceof NotFoundError) || age >= graceMs)
            throw error;
        if (this.#lagNoted)
            return;
        this.#lagNoted = true;
        this.#deps.log.info(`${this.#subject()} is not visible yet (404 right after its create); polling on for up to ${formatDuration(graceMs)}.`);
    }
    async stop(why, deadline) {
        this.record.stoppedBy = why.kind;
        if (!this.inFlight)
            return;
        const stateBefore = this.record.run?.state;
        const cancel = await this.#cancel(why, deadline);
        this.#ended({ kind: 'cancelled', cause: why.kind, stateBefore, cancel });
    }
    async #cancel(why, deadline) {
        const record = this.record;
        const runId = record.runId ?? '';
        const { client, now, sleep, log } = this.#deps;
        const report = await cancelOwnRun(this.tracker, runId, why, { client, now, sleep, log }, deadline);
        record.cancel = report;
        if (!this.tracker.needsCancel)
            this.#settle();
        const saidElsewhere = !this.#spec.name &&
            ((why.kind === 'signal' && report.kind !== 'blocked') ||
                (why.kind === 'timeout' && report.kind === 'blocked'));
        if (!saidElsewhere)
            logCancel(log, runId, report);
        return report;
    }
    handOver() {
        if (this.record.runId !== undefined)
            this.#settle();
    }
    skip(why) {
        if (!this.due)
            return;
        this.record.stoppedBy ??= why.kind;
        this.#ended({ kind: 'not-started' });
    }
    async #reachedTerminal(run, deadline) {
        const check = this.#spec.checkResult;
        if (check && run.state === 'SUCCEEDED') {
            const checked = await check(run, this.#corrections);
            if (checked.kind === 'correct') {
                this.#corrections += 1;
                const refusal = await this.#followUps.followUp(run, checked.message, deadline);
                if (refusal === undefined)
                    return;
                this.#deps.log.warning(`${this.#subject()} refused the correction: ${safeForLog(refusal)}`);
                this.record.invalidOutput = {
                    errors: [`the run refused the correction (${refusal})`],
                    corrections: this.#corrections - 1,
                    input: checked.input,
                };
            }
            else if (checked.kind === 'valid')
                this.record.document = checked.document;
            else
                this.record.invalidOutput = checked.invalidOutput;
            this.record.conversation = checked.conversation;
        }
        this.#settle();
        this.#ended({ kind: 'terminal' });
    }
    #ended(end) {
        this.record.end ??= end;
        this.record.endedAt ??= this.#deps.now();
    }
    #settle() {
        this.tracker.settle();
        this.record.settled = true;
    }
    async #create(request, deadline) {
        const { client, log, tag } = { ...this.#deps, tag: this.#spec.tag };
        const name = request.config?.name;
        const steering = this.#keySteering;
        if (steering) {
            const steered = await steering.steer(deadline);
            if (steered)
                return steered;
        }
        else {
            const continued = await this.#continuation?.start(request, deadline);
            if (continued?.kind === 'run') {
                this.record.usedBefore = costOf(continued.run.request_usage);
                return continued.run;
            }
            request = continued?.request ?? request;
            if (this.#spec.cancelPrevious && name) {
                const asked = { name, home: homeOfTag(tag.metadata), input: this.#spec.cancelPrevious };
                await cancelPreviousRuns(client, asked, log, { deadline });
            }
        }
        if (this.#deps.signal.aborted)
            return undefined;
        this.tracker.creating(tag.invocation);
        this.record.invocation = tag.invocation;
        let created;
        try {
            created = await createRunOnce(request, tag, { ...this.#deps, deadline });
        }
        catch (error) {
            if (!(error instanceof RunMayExistError))
                this.tracker.noRunMade();
            throw surfaceRefusal(error, request);
        }
        this.tracker.track(created.run_id);
        this.record.runId = created.run_id;
        log.info(`${this.#spec.name ? `${this.#spec.name}: created` : 'Created'} run ${safeForLog(created.run_id)}; it is ${safeForLog(created.state, 200)}.`);
        if (this.#spec.noteSuperseded)
            await noteSupersededRun(tag, this.#deps);
        const own = { ...created, title: request.title, prompt: request.prompt };
        return steering ? await steering.oneRunPerKey(own, deadline) : own;
    }
}

;// CONCATENATED MODULE: ./src/run/schedule.ts

function nextPollDelayMs(elapsedMs, pollIntervalMs) {
    const grown = Math.min(timing/* POLL_GROWTH */.k0.share * Math.max(0, elapsedMs), timing/* POLL_GROWTH */.k0.maxGrownDelayMs);
    return Math.min(Math.round(Math.max(pollIntervalMs, grown)), timing/* MAX_TIMER_MS */._o);
}

;// CONCATENATED MODULE: ./src/run/scheduler.ts















class LostContactError extends Error {
    name = 'LostContactError';
}
class RunScheduler {
    #settings;
    #deps;
    #lifecycles;
    #deadline = Infinity;
    #readAt = new Map();
    #listFallback = false;
    #stopped;
    #closed = false;
    constructor(lifecycles, settings, deps) {
        this.#lifecycles = lifecycles;
        this.#settings = settings;
        this.#deps = deps;
    }
    get listFallback() {
        return this.#listFallback;
    }
    async run() {
        const { now, log, signal } = this.#deps;
        const startedAt = now();
        const deadline = startedAt + this.#settings.timeoutMs;
        this.#deadline = deadline;
        let failuresInARow = 0;
        let askedDelayMs = 0;
        const elapsed = () => now() - startedAt;
        while (true) {
            if (signal.aborted)
                break;
            this.#judge();
            if (this.#stopped)
                break;
            await this.#stopPastOwnCaps();
            await this.#startDue();
            if (signal.aborted)
                break;
            this.#deps.onProgress?.();
            const inFlight = this.#inFlight();
            if (inFlight.length === 0 && !this.#lifecycles.some((one) => one.due))
                break;
            if (now() >= deadline) {
                this.#stopped = {
                    why: { kind: 'timeout' },
                    reason: `the timeout input (${formatDuration(this.#settings.timeoutMs)}) ran out`,
                };
                break;
            }
            const youngest = Math.min(...inFlight.map((one) => now() - (one.record.startedAt ?? now())));
            const delay = Math.max(nextPollDelayMs(youngest, this.#settings.pollIntervalMs), askedDelayMs);
            askedDelayMs = 0;
            const untilHeartbeat = Math.min(...inFlight.map((one) => one.watch?.msUntilHeartbeat() ?? Infinity));
            const untilDeadline = deadline - now();
            const wait = Math.min(delay, untilDeadline, untilHeartbeat);
            try {
                await this.#deps.sleep(wait, signal);
            }
            catch {
                break;
            }
            if (signal.aborted)
                break;
            if (wait === untilDeadline)
                continue;
            try {
                await this.#poll(inFlight);
                failuresInARow = 0;
            }
            catch (error) {
                if (signal.aborted)
                    break;
                if (now() >= deadline)
                    continue;
                if (isRefusal(error) && error instanceof ApiStatusError) {
                    askedDelayMs = retryAfterMs(error.headers, now()) ?? this.#settings.pollIntervalMs;
                    log.info(`The service refused the poll (${error.status}) and asked to wait ${formatDuration(askedDelayMs)}; polling again then, within the timeout.`);
                    continue;
                }
                if (!isRetryable(error, 'idempotent'))
                    throw error;
                failuresInARow += 1;
                const reason = safeForLog(errorMessage(error));
                if (failuresInARow >= timing/* POLL_FAILURE_BUDGET */.dD) {
                    throw new LostContactError(`Lost contact with the service: ${failuresInARow} polls in a row failed. Last error: ${reason}`, { cause: error });
                }
                log.warning(`Poll ${failuresInARow} of ${timing/* POLL_FAILURE_BUDGET */.dD} allowed in a row failed: ${reason}. Waiting on.`);
            }
        }
        this.#closed = true;
        if (signal.aborted)
            return { kind: 'interrupted', elapsedMs: elapsed() };
        if (!this.#stopped)
            return { kind: 'done', elapsedMs: elapsed() };
        const stop = this.#stopped;
        const notStarted = this.#lifecycles.filter((one) => one.due).length;
        this.#deps.announceStop?.(stop, this.#inFlight(), notStarted);
        await this.cancelInFlight(stop.why, cancelDeadline(stop.why, now()));
        return { kind: 'stopped', stop, elapsedMs: elapsed() };
    }
    async cancelInFlight(why, deadline) {
        const { now } = this.#deps;
        this.#closed = true;
        for (const one of this.#lifecycles)
            one.skip(why);
        const deciding = this.#lifecycles.filter((one) => one.tracker.deciding);
        if (deciding.length > 0) {
            const decideMs = (deadline - now()) * timing/* SIGNAL_CANCEL */.EJ.decideShare;
            await Promise.all(deciding.map((one) => one.tracker.whenDecided(decideMs)));
        }
        if (this.#lifecycles.some((one) => one.tracker.mayHaveUnseenRun)) {
            this.#deps.log.info('The create request has not been answered; the run it may have made is looked for by its tag and cancelled.');
        }
        const inFlight = this.#inFlight();
        await Promise.all(inFlight.map((one) => one.stop(why, deadline)));
        await this.#readEndStates(inFlight, why, deadline);
    }
    handOver() {
        this.#closed = true;
        for (const one of this.#lifecycles)
            one.handOver();
    }
    async #readEndStates(stopped, why, deadline) {
        const cancelled = stopped.filter((one) => one.record.cancel?.kind === 'cancelled' || one.record.cancel?.kind === 'blocked');
        if (cancelled.length === 0)
            return;
        try {
            if (!this.#listsRuns()) {
                await Promise.all(cancelled.map(async (one) => {
                    const run = await this.#deps.client.getRun(one.record.runId ?? '', {
                        timeoutMs: timing/* REREAD_AFTER_CANCEL_MS */.PH,
                        maxRetries: 0,
                    });
                    one.record.run = run;
                }));
                return;
            }
            if (why.kind === 'signal' || this.#deps.now() >= deadline)
                return;
            const { runs } = await this.#listRuns(deadline, undefined);
            const byId = new Map(runs.map((run) => [run.run_id, run]));
            for (const one of cancelled) {
                const run = byId.get(one.record.runId ?? '');
                if (run && isTerminal(run.state))
                    one.record.run = run;
            }
        }
        catch {
        }
    }
    async #startDue() {
        const starts = [];
        let going = this.#lifecycles.filter((other) => other.starting || other.inFlight).length;
        for (const one of this.#lifecycles) {
            if (this.#closed || this.#stopped)
                break;
            if (going >= this.#settings.maxParallel)
                break;
            if (!one.due)
                continue;
            starts.push(one.start(this.#deadline));
            going += 1;
        }
        await Promise.all(starts);
    }
    #listsRuns() {
        return (this.#lifecycles.length > 1 && this.#deps.listMetadata !== undefined && !this.#listFallback);
    }
    async #poll(inFlight) {
        const deadline = this.#deadline;
        const listed = new Map();
        let pageFull = false;
        if (this.#listsRuns()) {
            try {
                const pages = Math.max(1, Math.ceil(inFlight.length / timing/* SET_LIST_PAGE */.Ag));
                let cursor;
                for (let page = 0; page < pages; page += 1) {
                    const { runs, page_info } = await this.#listRuns(deadline, cursor);
                    for (const run of runs) {
                        if (isChildRun(run))
                            this.#childSeen(run);
                        else
                            listed.set(run.run_id, run);
                    }
                    pageFull = page_info?.has_next_page === true;
                    cursor = page_info?.next_cursor ?? undefined;
                    if (!pageFull || !cursor)
                        break;
                }
            }
            catch (error) {
                if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') {
                    throw error;
                }
                this.#listFallback = true;
                this.#deps.log.info("The service's plan cannot filter runs by metadata (feature_not_available); reading each run on its own instead, one request per run per poll.");
            }
        }
        const now = this.#deps.now();
        for (const one of inFlight) {
            const run = listed.get(one.record.runId ?? '');
            if (run) {
                this.#readAt.set(one, now);
                await one.seen(run, deadline);
                continue;
            }
            const readAt = this.#readAt.get(one);
            if (pageFull && readAt !== undefined && now - readAt < timing/* SET_UNLISTED_RECHECK_MS */.X2)
                continue;
            await this.#readOnItsOwn(one, deadline);
            if (this.#settings.caps.length > 0)
                await this.#readChildren(one, deadline);
        }
    }
    #childSeen(child) {
        const rootId = rootIdOf(child);
        const root = this.#lifecycles.find((one) => one.record.runId === rootId);
        if (root)
            root.record.children = mergeChildren(root.record.children, [child]);
    }
    async #readChildren(one, deadline) {
        const runId = one.record.runId;
        if (!runId || !one.inFlight)
            return;
        try {
            const children = await readChildren(this.#deps.client, runId, {}, {
                signal: this.#deps.signal,
                deadline,
                maxRetries: 0,
            });
            one.record.children = mergeChildren(one.record.children, children);
        }
        catch {
        }
    }
    async #readOnItsOwn(one, deadline) {
        let run;
        try {
            run = await this.#deps.client.getRun(one.record.runId ?? '', {
                signal: this.#deps.signal,
                deadline,
            });
        }
        catch (error) {
            return one.readFailed(error);
        }
        this.#readAt.set(one, this.#deps.now());
        await one.seen(run, deadline);
    }
    #listRuns(deadline, cursor) {
        return this.#deps.client.listRuns({
            metadata: { ...this.#deps.listMetadata },
            limit: timing/* SET_LIST_PAGE */.Ag,
            sort_by: 'updated_at',
            sort_order: 'desc',
            ...(cursor ? { cursor } : {}),
        }, { signal: this.#deps.signal, deadline });
    }
    #judge() {
        const { caps, passWhen } = this.#settings;
        for (const cap of caps) {
            const past = pastCap(cap, this.#lifecycles);
            if (past) {
                this.#stopped = { why: { kind: 'over-budget' }, reason: past };
                return;
            }
        }
        const counts = this.counts();
        if (passWhenStanding(passWhen, counts) === 'cannot-be-met') {
            this.#stopped = {
                why: { kind: 'pass-when' },
                reason: `${counts.notSucceeded} of ${counts.tasks} runs did not succeed, so ${describePassWhen(passWhen, counts.tasks)} can no longer succeed`,
            };
        }
    }
    counts() {
        let succeeded = 0;
        let notSucceeded = 0;
        for (const { record } of this.#lifecycles) {
            const standing = standingOf(record);
            if (standing === 'succeeded')
                succeeded += 1;
            else if (standing === 'not-succeeded')
                notSucceeded += 1;
        }
        return { tasks: this.#lifecycles.length, succeeded, notSucceeded };
    }
    async #stopPastOwnCaps() {
        if (this.#lifecycles.every((one) => one.caps.length === 0))
            return;
        const past = this.#lifecycles.flatMap((one) => {
            if (!one.inFlight)
                return [];
            const reason = one.caps.map((cap) => pastCap(cap, [one])).find((why) => why !== undefined);
            return reason === undefined ? [] : [{ one, reason }];
        });
        const why = { kind: 'over-budget' };
        await Promise.all(past.map(({ one, reason }) => {
            const name = one.name ?? 'The run';
            this.#deps.log.warning(`${name}: ${reason}; its run is cancelled.`);
            return one.stop(why, cancelDeadline(why, this.#deps.now()));
        }));
    }
    #inFlight() {
        return this.#lifecycles.filter((one) => one.inFlight);
    }
}
function pastCap(cap, lifecycles) {
    const { unit } = cap.amount;
    let sum;
    for (const { record } of lifecycles) {
        const cost = costSince(treeCostOf(record.run, record.children), record.usedBefore);
        if (isUnpriced(cost, unit)) {
            const reported = formatAmount({
                value: costIn(cost, otherUnit(unit)) ?? 0,
                unit: otherUnit(unit),
            });
            return `run ${record.run?.run_id ?? ''} reported ${reported} and no figure in ${unitName(unit)}, which ${capWords(cap)} cannot count (write it in ${unitName(otherUnit(unit))})`;
        }
        const spent = costIn(cost, unit);
        if (spent !== undefined)
            sum = (sum ?? 0) + spent;
    }
    if (sum === undefined || sum <= cap.amount.value)
        return undefined;
    const used = formatAmount({ value: sum, unit });
    const runs = lifecycles.length === 1 ? `the run used ${used}` : `the runs used ${used} together`;
    return `${runs}, past ${capWords(cap)}`;
}

;// CONCATENATED MODULE: ./src/run/superseded.ts


const LOOKUP = { timeoutMs: timing/* SUPERSEDING_LOOKUP */.p9.requestMs, maxRetries: 0 };
async function findSupersedingRun(client, run, deps) {
    const name = run.agent_config?.name;
    const cancelledAt = Date.parse(run.updated_at ?? '');
    if (run.state !== 'CANCELLED' || !name || Number.isNaN(cancelledAt))
        return undefined;
    const until = deps.now() + timing/* SUPERSEDING_LOOKUP */.p9.forMs;
    for (;;) {
        const newer = await lookOnce(client, run, name, cancelledAt, deps.signal);
        if (newer !== null)
            return newer;
        if (deps.now() + timing/* SUPERSEDING_LOOKUP */.p9.pauseMs > until || deps.signal?.aborted)
            return undefined;
        await deps.sleep(timing/* SUPERSEDING_LOOKUP */.p9.pauseMs, deps.signal).catch(() => undefined);
    }
}
async function lookOnce(client, run, name, cancelledAt, signal) {
    try {
        const since = new Date(cancelledAt - 1_000).toISOString();
        const { runs } = await client.listRuns({ name, created_after: since, sort_by: 'created_at', sort_order: 'asc', limit: 20 }, { ...LOOKUP, signal });
        const newer = runs.find((other) => {
            const createdAt = Date.parse(other.created_at ?? '');
            return (other.run_id !== run.run_id &&
                !isChildRun(other) &&
                other.agent_config?.name === name &&
                createdAt >= cancelledAt &&
                createdAt - cancelledAt <= timing/* SUPERSEDING_LOOKUP */.p9.causeWindowMs);
        });
        return newer ?? null;
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/run/step-runs.ts




class StepRuns {
    lifecycles;
    #scheduler;
    #deps;
    constructor(lifecycles, settings, deps) {
        this.lifecycles = lifecycles;
        this.#deps = deps;
        this.#scheduler = new RunScheduler(lifecycles, settings, deps);
    }
    get records() {
        return this.lifecycles.map((one) => one.record);
    }
    get listFallback() {
        return this.#scheduler.listFallback;
    }
    counts() {
        return this.#scheduler.counts();
    }
    async execute(interruption) {
        interruption.guard(this.#scheduler);
        const startedAt = this.#deps.now();
        let schedule;
        try {
            schedule = await this.#scheduler.run();
        }
        catch (error) {
            if (!interruption.cancelling) {
                await this.#cancelAfterError();
                await interruption.settled();
                throw error;
            }
            if (error instanceof RunMayExistError)
                this.#deps.log.warning(error.message);
            schedule = { kind: 'interrupted', elapsedMs: this.#deps.now() - startedAt };
        }
        const signal = await interruption.settled();
        return { schedule, signal, handedOver: interruption.handedOver };
    }
    async #cancelAfterError() {
        const why = { kind: 'error' };
        await this.#scheduler.cancelInFlight(why, cancelDeadline(why, this.#deps.now()));
        await Promise.all(this.lifecycles.map((one) => cancelAfterError(one.tracker, this.#deps)));
    }
    async replaced() {
        const record = this.records.find((one) => one.run?.state === 'CANCELLED' && one.stoppedBy === undefined);
        if (!record?.run)
            return undefined;
        const newer = await findSupersedingRun(this.#deps.client, record.run, this.#deps);
        return newer && { record, newer };
    }
}

;// CONCATENATED MODULE: ./src/run/step.ts









async function executeStep(settings, deps, interruption) {
    const startedAt = deps.now();
    if (deps.signal.aborted)
        return { outcome: { kind: 'interrupted', run: undefined } };
    const { client, tracker, now, sleep, signal, log } = deps;
    const lifecycle = new RunLifecycle({
        target: settings.target,
        record: {},
        tag: deps.tag,
        wait: settings.wait,
        cancelPrevious: settings.cancelPrevious,
        noteSuperseded: true,
        startFailure: 'throw',
        newPassGraceMs: Math.min(timing/* NEW_PASS_GRACE_MS */.Rc, settings.timeoutMs / 2),
        checkResult: deps.checkResult,
        ...(settings.previousRun === 'steer' ? { steer: deps.steer } : {}),
        ...(settings.continueFrom ? { continueFrom: deps.continueFrom } : {}),
    }, {
        client,
        tracker,
        now,
        sleep,
        signal,
        log,
        watch: deps.watch,
        onSteered: deps.onSteered,
    });
    const { timeoutMs } = settings;
    const caps = bindingCaps(maxCreditsCap(settings.agentWork.maxCredits), ...(deps.budgetCaps ?? []));
    const schedule = { maxParallel: 1, passWhen: { kind: 'all' }, timeoutMs, caps };
    const runs = new StepRuns([lifecycle], { ...schedule, pollIntervalMs: settings.pollIntervalMs }, {
        client,
        now,
        sleep,
        signal,
        log,
        onProgress: () => deps.onProgress?.(runs.records),
        announceStop: (stop, inFlight) => {
            if (inFlight.length === 0)
                return;
            const subject = `Run ${safeForLog(lifecycle.record.runId ?? '')}`;
            if (stop.why.kind === 'timeout') {
                return log.info(`${subject} did not finish within the timeout input (${formatDuration(timeoutMs)}); cancelling it.`);
            }
            const line = `${subject} is being stopped: ${stop.reason}; cancelling it.`;
            if (stop.why.kind === 'over-budget')
                log.warning(line);
            else
                log.info(line);
        },
    });
    const end = await runs.execute(interruption);
    const { record } = lifecycle;
    if (!end.signal && !end.handedOver)
        await readTreeAtEnd(record, client);
    if (end.handedOver && record.run) {
        return { outcome: { kind: 'handed-over', run: record.run, reason: end.handedOver } };
    }
    if (end.signal) {
        const { run, cancel } = record;
        const by = interruption.interrupted;
        return { outcome: { kind: 'interrupted', run, signal: end.signal, cancel, by } };
    }
    const read = outcomeOfRun(record, { elapsedMs: deps.now() - startedAt, timeoutMs, caps });
    const children = record.children?.length ? { children: record.children } : {};
    const outcome = read.kind === 'not-started' || end.schedule.kind === 'interrupted'
        ? { kind: 'interrupted', run: record.run, ...children }
        : { ...read, ...children };
    const checked = { outcome, document: record.document, conversation: record.conversation };
    if (outcome.kind !== 'finished')
        return checked;
    const newer = (await runs.replaced())?.newer;
    if (!newer)
        return checked;
    return { ...checked, outcome: { ...outcome, supersededBy: newer.run_id }, newer };
}
async function readTreeAtEnd(record, client) {
    const { runId } = record;
    if (!runId || record.end?.kind === 'started' || record.end?.kind === 'not-started')
        return;
    try {
        const children = await readChildren(client, runId, {}, { timeoutMs: timing/* CHILDREN_READ_MS */.sT, maxRetries: 0 });
        record.children = mergeChildren(record.children, children);
    }
    catch {
    }
}

;// CONCATENATED MODULE: ./src/agent/progress.ts


class ProgressTracker {
    #reported = new Set();
    update(conversation) {
        const events = [];
        const visit = (steps, path) => {
            steps.forEach((step, index) => {
                const stepKey = step.id ? `step:${step.id}` : `step@${path}${index}`;
                step.messages.forEach((message, messageIndex) => {
                    message.actions.forEach((action, actionIndex) => {
                        const key = action.id
                            ? `action:${action.id}`
                            : `action@${stepKey}/${messageIndex}/${actionIndex}`;
                        if (this.#firstTime(key))
                            events.push(actionEvent(action));
                    });
                });
                visit(step.steps, `${path}${index}.`);
                if (step.completed && step.summary && this.#firstTime(stepKey)) {
                    events.push({ kind: 'step', summary: step.summary });
                }
            });
        };
        visit(conversation.steps, '');
        return events;
    }
    #firstTime(key) {
        if (this.#reported.has(key))
            return false;
        this.#reported.add(key);
        return true;
    }
}
function actionEvent(action) {
    return { kind: 'action', category: clip(action.category, 40), name: clip(action.name, 120) };
}
function describeProgress(event) {
    switch (event.kind) {
        case 'step':
            return `Agent step done: ${clip(event.summary.replace(/\s+/g, ' '), 500)}`;
        case 'action':
            return `Agent action: ${event.category || 'action'}${event.name ? ` ${event.name}` : ''}`;
    }
}
class ProgressReadSchedule {
    #startedAt;
    #lastReadAt;
    #reads = 0;
    constructor(now) {
        this.#startedAt = now;
    }
    isDue(now, stateChanged) {
        const allowed = 1 + Math.floor((now - this.#startedAt) / timing/* PROGRESS_READ_INTERVAL_MS */.AU);
        if (this.#reads >= allowed)
            return false;
        if (stateChanged || this.#lastReadAt === undefined)
            return true;
        return now - this.#lastReadAt >= timing/* PROGRESS_READ_INTERVAL_MS */.AU;
    }
    recordRead(now) {
        this.#reads += 1;
        this.#lastReadAt = now;
    }
}
class Heartbeat {
    #lastLineAt;
    constructor(now) {
        this.#lastLineAt = now;
    }
    noteLine(now) {
        this.#lastLineAt = now;
    }
    isDue(now) {
        return now - this.#lastLineAt >= timing/* HEARTBEAT_INTERVAL_MS */.sU;
    }
    msUntilDue(now) {
        return Math.max(0, this.#lastLineAt + timing/* HEARTBEAT_INTERVAL_MS */.sU - now);
    }
}
function newSessionLink(announced, run) {
    const link = typeof run === 'object' && run !== null
        ? run.session_link
        : undefined;
    if (typeof link !== 'string' || link === announced)
        return undefined;
    try {
        const url = new URL(link);
        return url.protocol === 'https:' || url.protocol === 'http:' ? link : undefined;
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/log.ts
function namedLog(log, name) {
    const named = (line) => `${name}: ${line.replace(/^Run /, 'run ')}`;
    return {
        info: (message) => log.info(named(message)),
        warning: (message) => log.warning(named(message)),
        debug: (message) => log.debug(named(message)),
    };
}

;// CONCATENATED MODULE: ./src/run/watch.ts








class RunWatcher {
    #settings;
    #deps;
    #startedAt;
    #heartbeat;
    #reads;
    #progress = new ProgressTracker();
    #announcedLink;
    #lastConversation;
    constructor(settings, deps) {
        this.#settings = settings;
        this.#deps = deps;
        this.#startedAt = deps.now();
        this.#heartbeat = new Heartbeat(this.#startedAt);
        this.#reads = new ProgressReadSchedule(this.#startedAt);
    }
    get log() {
        const note = () => this.#heartbeat.noteLine(this.#deps.now());
        const log = this.#deps.log;
        return {
            info: (message) => (note(), log.info(message)),
            warning: (message) => (note(), log.warning(message)),
            debug: (message) => log.debug(message),
        };
    }
    msUntilHeartbeat() {
        return this.#heartbeat.msUntilDue(this.#deps.now());
    }
    get lastConversation() {
        return this.#lastConversation;
    }
    async afterPoll(run, stateChanged, signal, deadline) {
        const { safeForLog } = this.#deps;
        const link = newSessionLink(this.#announcedLink, run);
        if (link) {
            this.#announcedLink = link;
            this.log.info(`Session: ${safeForLog(link)}`);
            this.#deps.onSessionLink?.(link);
        }
        const blocked = meaningOf(run.state) === 'blocked';
        const started = run.state !== 'QUEUED' && run.state !== 'PENDING';
        if (this.#settings.showProgress &&
            started &&
            this.#reads.isDue(this.#deps.now(), stateChanged)) {
            await this.#readProgress(signal, deadline);
        }
        if (blocked && stateChanged) {
            if (!this.#settings.showProgress || !this.#lastConversation)
                await this.#readOnce(signal, deadline);
            return this.#onBlocked(run);
        }
        if (this.#heartbeat.isDue(this.#deps.now())) {
            this.log.info(`Still waiting: run ${safeForLog(run.run_id)} is ${safeForLog(run.state)} after ${formatDuration(this.#deps.now() - this.#startedAt)}.`);
        }
        return { kind: 'continue' };
    }
    #onBlocked(run) {
        const { safeForLog } = this.#deps;
        const question = blockedQuestion(run.status_message, this.#lastConversation && finalAnswer(this.#lastConversation));
        const decision = decideOnBlocked(this.#settings.onBlocked);
        const waitsFor = question
            ? `It waits for: ${safeForLog(question)}`
            : 'The service does not say what it waits for.';
        const answer = howToAnswer({
            sessionLink: this.#announcedLink ? safeForLog(this.#announcedLink) : undefined,
            continueRun: this.#settings.continueRun,
        });
        const next = decision.keepWaiting
            ? 'This step waits on, until its timeout (on_blocked: wait).'
            : `This step hands the run over and ${decision.passes ? 'passes' : 'fails'} (on_blocked: ${this.#settings.onBlocked}); the run stays BLOCKED.`;
        this.log.warning(`Run ${safeForLog(run.run_id)} is BLOCKED: it needs a person. ${waitsFor} ${answer} ${next}`);
        return decision.keepWaiting
            ? { kind: 'continue' }
            : { kind: 'blocked', passes: decision.passes, question };
    }
    async #readProgress(signal, deadline) {
        const conversation = await this.#readOnce(signal, deadline);
        if (!conversation)
            return;
        for (const event of this.#progress.update(conversation)) {
            this.log.info(this.#deps.safeForLog(describeProgress(event)));
        }
    }
    async #readOnce(signal, deadline) {
        this.#reads.recordRead(this.#deps.now());
        const conversation = await this.#deps.readConversation(signal, deadline);
        if (conversation)
            this.#lastConversation = conversation;
        return conversation;
    }
}
function stepWatcher(settings, tracker, sources, deps) {
    return watcherOf({
        showProgress: settings.agentWork.showProgress,
        onBlocked: settings.agentWork.onBlocked,
        continueRun: settings.target.kind === 'continue',
    }, () => tracker.runId, sources, deps);
}
function taskWatcher(settings, record, sources, deps) {
    if (!settings.showProgress && settings.onBlocked === 'wait')
        return undefined;
    const log = namedLog(deps.log, deps.name);
    const watch = { ...settings, continueRun: false };
    return watcherOf(watch, () => record.runId, sources, { log });
}
function watcherOf(settings, runIdOf, sources, deps) {
    const { log } = deps;
    const quiet = {
        info: (message) => log.debug(message),
        warning: (message) => log.debug(message),
        debug: (message) => log.debug(message),
    };
    return new RunWatcher(settings, {
        now: Date.now,
        log,
        safeForLog: safeForLog,
        readConversation: async (signal, deadline) => {
            const runId = runIdOf();
            return runId ? readConversation(runId, sources, quiet, signal, deadline) : undefined;
        },
        onSessionLink: deps.onSessionLink,
    });
}

;// CONCATENATED MODULE: ./src/step/run-surfaces.ts








async function openThread(settings, github, io) {
    const continuing = settings.target.kind === 'continue';
    if (!settings.github.comment && !continuing)
        return undefined;
    return openThreadComment(settings.github, github, io, {
        onCommentChosen: (commentId) => savedState(io).saveCommentId(commentId),
        mode: continuing ? 'reply' : 'keyed',
        name: settings.target.kind === 'existing' ? undefined : settings.target.request.config?.name,
    });
}
class RunSurfaces {
    #settings;
    #github;
    #io;
    #comment;
    #status;
    #checkRun;
    #headMoved;
    #end;
    #lastSeen;
    commit;
    constructor(settings, github, io, parts) {
        this.#settings = settings;
        this.#github = github;
        this.#io = io;
        this.#comment = parts.comment;
        this.#status = parts.status;
        this.#checkRun = parts.checkRun;
        this.commit = parts.commit;
    }
    static async open(settings, github, thread, io) {
        const commit = await resolveWorkCommit(github, io);
        const { status, checkRun } = await openCommitSurfaces(settings.github, settings.output.checkRun, github, commit, io, savedState(io));
        const comment = settings.github.comment ? thread : undefined;
        if (commit)
            comment?.workOn(commit.sha);
        return new RunSurfaces(settings, github, io, { commit, comment, status, checkRun });
    }
    showRunning([record]) {
        const run = record?.run;
        if (!run || isTerminal(run.state) || this.#end)
            return;
        const seen = `${run.run_id} ${run.state} ${run.session_link ?? ''}`;
        if (seen === this.#lastSeen)
            return;
        this.#lastSeen = seen;
        this.#comment?.show(run);
        this.#status?.show(pendingStatus(run, this.#github.workflowRun));
    }
    showEnd(end) {
        const { outcome, newer, cancelling } = end;
        this.#end = end;
        if (!(newer && newer.metadata?.gh_head_sha === this.commit?.sha)) {
            this.#status?.show(finalStatus(outcome, this.#github.workflowRun), true);
        }
        if (!outcome.run || !this.#comment)
            return;
        this.#comment.show(outcome.run, { outcome: this.#commentOutcome(outcome) });
        if (!cancelling)
            this.#headMoved = headMovedNote(this.#github, this.commit, this.#io);
    }
    async showWork(work) {
        if (!this.#end) {
            await Promise.all([this.#comment?.settled(), this.#status?.settled()]);
            return;
        }
        const { outcome, cancelling } = this.#end;
        const { review } = work;
        if (outcome.run && this.#comment) {
            const moved = await this.#headMoved;
            this.#comment.show(outcome.run, {
                notes: moved ? [moved] : [],
                answer: review?.summary ?? work.answer,
                outcome: this.#commentOutcome(outcome),
            });
        }
        const { run } = outcome;
        await Promise.all([
            this.#comment?.settled(),
            this.#status?.settled(),
            review && run && !cancelling
                ? postPullRequestReview(this.#settings.github, this.#github, this.commit, review, { runId: run.run_id, sessionLink: run.session_link }, this.#io)
                : undefined,
            this.#checkRun?.finish(checkReport(outcome, { answer: work.answer, review }), review ? annotationsOf(review.comments, review.verdict) : []),
        ]);
    }
    #commentOutcome(outcome) {
        return commentOutcomeOf(outcome, this.#settings.target.kind === 'continue');
    }
    static async showStopped({ saved, ended, settings, world, client, io }) {
        const github = new GitHubContext(settings.github.token, world);
        const [one] = ended;
        if (one)
            await showRunStopped(one, saved, settings, github, client, io);
        if (checkRunLeft(saved))
            await finishStoppedCheckRun(saved, one?.report, settings, github, io);
    }
}
RunSurfaces;
async function showRunStopped(left, saved, settings, github, client, io) {
    const stopped = STOPPED[left.report.kind];
    if (saved.commentId && settings.github.comment) {
        let run;
        try {
            run = await client.getRun(left.runId, { maxRetries: 0 });
        }
        catch {
        }
        const comment = run &&
            (await openThreadComment(settings.github, github, io, {
                commentId: saved.commentId,
                name: run.agent_config?.name,
            }));
        if (run && comment) {
            comment.show(run, { notes: [`${stopped}.`] });
            await comment.settled();
        }
    }
    if (saved.statusSha && settings.github.commitStatus) {
        const status = await openCommitStatus(settings.github, github, { sha: saved.statusSha }, io);
        status?.show({ state: 'error', description: stopped });
        await status?.settled();
    }
}
async function finishStoppedCheckRun(saved, report, settings, github, io) {
    const stopped = stoppedCheckReport(report ? `${STOPPED[report.kind]}.` : STEP_STOPPED, report?.kind === 'cancelled');
    await finishLeftCheckRun(settings.github, github, saved, stopped, io);
}
const STOPPED = {
    cancelled: 'The step stopped before the run ended; the run was cancelled',
    'already-finished': 'The step stopped before it could report the run, which has ended',
    blocked: 'The step stopped while the run waits for a person; a BLOCKED run cannot be cancelled',
    refused: 'The step stopped before the run ended; the service refused the cancel',
    'not-cancellable': 'The step stopped before the run ended; the run cannot be cancelled',
    failed: 'The step stopped before the run ended, and cancelling the run failed',
};
const STEP_STOPPED = "The step stopped before it reported the run. The workflow run's log says why.";

;// CONCATENATED MODULE: ./src/step/one-run.ts
















async function oneRunShape(read) {
    const output = await prepareOutput(read.output);
    return {
        settings: read,
        async admit(world, io) {
            const admitted = await admitByApproval(read, world, io);
            return admitted && admittedRun(admitted.settings, admitted.github, output);
        },
    };
}
function admittedRun(settings, github, output) {
    return {
        github,
        creates: settings.target.kind !== 'existing',
        prepare: (start) => prepare({ ...start, settings, output }),
    };
}
async function prepare(step) {
    const { settings, github, output, io } = step;
    const continuing = settings.target.kind === 'continue';
    if (continuing && !(await mayTalkToAgent(settings.github, github, io)))
        return undefined;
    const thread = await openThread(settings, github, io);
    const asked = output ? withInstruction(settings.target, output.instruction) : settings.target;
    const target = await resolveTarget(asked, thread, io);
    const surfaces = await RunSurfaces.open(settings, github, thread, io);
    const sources = agentWorkSources(step.client);
    const onSessionLink = (link) => io.setOutput('session_link', link);
    const watcher = stepWatcher(settings, step.tracker, sources, { log: io, onSessionLink });
    const waitsEndBy = Date.now() + settings.timeoutMs + timing/* PAST_TIMEOUT_MS */.WP;
    const prepared = { ...step, target, thread, surfaces, sources, watcher, waitsEndBy };
    return {
        execute: async (interruption) => {
            const executed = await execute(prepared, interruption);
            return { finish: () => finish(prepared, executed, interruption) };
        },
    };
}
async function execute(step, interruption) {
    const { settings, client, tracker, surfaces, watcher, output, sources } = step;
    const handoff = stepHandoff(settings, step.home);
    const steering = step.steering ?? githubSteering(step, surfaces.commit?.sha);
    if (settings.previousRun === 'steer')
        interruption.handsOverWhen(steering.newerStep);
    const checkResult = output &&
        documentCheck(output, {
            sources,
            retries: settings.output.retries,
            deadline: Date.now() + settings.timeoutMs,
            signal: interruption.signal,
            now: Date.now,
            log: step.io,
        });
    const head = surfaces.commit?.sha ?? step.home.head;
    const deps = {
        client,
        tracker,
        now: Date.now,
        sleep: abortableSleep,
        signal: interruption.signal,
        log: watcher.log,
        watch: watcher,
        tag: runTag(step.world, undefined, head, {
            ...handoff,
            ...limitsTag(limitsOf(settings, step)),
        }),
        onProgress: (runs) => surfaces.showRunning(runs),
        steer: steering.source,
        continueFrom: continueSource(step.home, head),
        onSteered: () => step.io.setOutput('steered', 'true'),
        checkResult,
        ...(step.budgetCaps ? { budgetCaps: step.budgetCaps } : {}),
    };
    return executeStep({ ...settings, target: step.target }, deps, interruption);
}
async function finish(step, executed, interruption) {
    const { settings, surfaces } = step;
    const { cancelling } = interruption;
    const { outcome, review } = reviewed(executed, settings.output.pullRequestReview);
    surfaces.showEnd({ outcome, newer: executed.newer, cancelling });
    const work = await gatherAgentWork(outcome, {
        settings: settings.agentWork,
        world: step.world,
        sources: step.sources,
        conversation: outcome.kind === 'blocked' ? step.watcher.lastConversation : executed.conversation,
        signal: interruption.signal,
        endBy: step.waitsEndBy,
        log: step.io,
    });
    await surfaces.showWork({ answer: work.answer, review });
    await publishOutcome(step.io, outcome, {
        ...work,
        shownAnswer: review?.summary,
        continueRun: settings.target.kind === 'continue',
        structuredOutput: executed.document,
        verdict: review?.verdict,
    });
}
function limitsOf(settings, step) {
    const caps = bindingCaps(maxCreditsCap(settings.agentWork.maxCredits), ...(step.budgetCaps ?? []));
    const credits = caps.find((cap) => cap.amount.unit === 'credits');
    const usd = caps.find((cap) => cap.amount.unit === 'usd');
    return {
        ...(settings.wait ? { deadline: new Date(Date.now() + settings.timeoutMs).toISOString() } : {}),
        ...(credits ? { cap: credits.amount.value } : {}),
        ...(usd ? { capUsd: usd.amount.value } : {}),
    };
}

;// CONCATENATED MODULE: ./src/at-most.ts
async function eachAtMost(atOnce, items, work) {
    let next = 0;
    const worker = async () => {
        while (next < items.length) {
            const index = next++;
            await work(items[index], index);
        }
    };
    await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
}

;// CONCATENATED MODULE: ./src/summary/campaign.ts


function campaignPlan(campaign, said, tasks) {
    const skipped = said.filter((one) => one.done === 'skip').length;
    const followed = said.length - skipped;
    const started = tasks - said.length;
    const shown = said.slice(0, MAX_ROWS);
    const table = [
        '| Repository | Done | Why |',
        '| --- | --- | --- |',
        ...shown.map(({ key, done, why }) => {
            const repository = key.slice(campaign.length + 1);
            const word = done === 'skip' ? 'skipped' : 'followed up';
            return `| ${escapeMarkdown(repository)} | ${word} | ${escapeMarkdown(cut(why, MAX_WHY))} |`;
        }),
        ...(said.length > shown.length
            ? ['', `${said.length - shown.length} more, each said in the step's log.`]
            : []),
    ];
    const lines = [
        `#### Campaign ${escapeMarkdown(campaign)}: ${started} of ${tasks} repositories started, ${followed} followed up, ${skipped} skipped`,
        '',
        ...(said.length > OPEN_ROWS
            ? [
                '<details>',
                `<summary>The ${said.length} repositories skipped or followed up, one row each</summary>`,
                '',
                ...table,
                '',
                '</details>',
            ]
            : table),
        '',
    ];
    return `${lines.join('\n')}\n`;
}
const OPEN_ROWS = 50;
const MAX_ROWS = 500;
const MAX_WHY = 400;

;// CONCATENATED MODULE: ./src/run/campaign.ts








const MAX_PAGES = 20;
const PARALLEL_READS = 8;
async function planCampaign(client, campaign, tasks, deadline) {
    if (tasks.every((task) => task.key === undefined))
        return tasks.map(() => ({ kind: 'start' }));
    const listed = await listTaggedRuns(client, { [CAMPAIGN_KEY]: campaign }, {}, {
        maxPages: MAX_PAGES,
        deadline,
    });
    if (!listed.complete) {
        throw new Error(`campaign ${campaign} has more runs than the ${MAX_PAGES * 500} the step reads to apply it again; none was started rather than pay twice for a repository. Give the instruction a new campaign name.`);
    }
    const byKey = new Map();
    for (const run of listed.runs) {
        const key = run.metadata?.[HANDOFF_KEYS.key];
        if (typeof key !== 'string' || run.metadata?.[CAMPAIGN_KEY] !== campaign)
            continue;
        const seen = byKey.get(key) ?? {};
        seen.latest ??= run;
        if (!seen.opener && pullRequestUrlOf(run))
            seen.opener = run;
        byKey.set(key, seen);
    }
    const runsOf = tasks.map((task) => (task.key === undefined ? {} : (byKey.get(task.key) ?? {})));
    const sent = await readSent(client, tasks.flatMap((task, index) => {
        const { latest, opener } = runsOf[index] ?? {};
        const asked = applyAgain(task.prompt, { latest, opener, sent: false });
        return asked.kind === 'follow-up' ? [{ index, run: asked.run, prompt: task.prompt }] : [];
    }), { campaign, deadline });
    return tasks.map((task, index) => {
        if (task.key === undefined)
            return { kind: 'start' };
        const { latest, opener } = runsOf[index] ?? {};
        return applyAgain(task.prompt, { latest, opener, sent: sent.get(index) });
    });
}
async function readSent(client, asked, options) {
    const sent = new Map();
    let next = 0;
    const worker = async () => {
        for (let one = asked[next++]; one; one = asked[next++]) {
            try {
                const conversation = parseConversation(await client.getConversation(one.run.run_id, {
                    deadline: options.deadline,
                    maxRetries: 1,
                }));
                sent.set(one.index, messagesInOrder(conversation).some((message) => message.role === 'user' &&
                    message.texts.some((text) => isCampaignFollowUp(text, options.campaign, one.prompt))));
            }
            catch (error) {
                if (error instanceof ApiStatusError && error.status === 404)
                    sent.set(one.index, false);
            }
        }
    };
    await Promise.all(Array.from({ length: PARALLEL_READS }, worker));
    return sent;
}
const BUDGET_READS = 8;
async function checkRepositoryBudgets(client, daily, homes, deps) {
    const checked = [];
    await eachAtMost(BUDGET_READS, homes, async (home, index) => {
        const check = await checkCreditBudgets(client, { daily, pullRequest: undefined }, home, deps);
        checked[index] = check.reached ? { reached: check.reached.why } : { caps: check.caps };
    });
    return checked;
}

;// CONCATENATED MODULE: ./src/summary/set-table.ts










function hasEnded(task) {
    return task.endedAt !== undefined && !isDetached(task);
}
function taskWords(task, running) {
    if (running && !hasEnded(task)) {
        const state = task.run?.state;
        if (task.invocation === undefined)
            return '\u23f8\ufe0f waiting to start';
        if (state === undefined)
            return '\u23f3 starting';
        if (state === 'QUEUED' || state === 'PENDING')
            return '\u23f3 queued';
        const { blocked } = OUTCOME_RECORDS;
        return meaningOf(state) === 'blocked' ? `${blocked.icon} ${blocked.short}` : '\u23f3 in progress';
    }
    const word = outcomeWordOfRun(task);
    return word === 'not_started'
        ? '\u23f8\ufe0f not started'
        : `${OUTCOME_RECORDS[word].icon} ${OUTCOME_RECORDS[word].short}`;
}
const TABLE_HEAD = [
    '| # | Task | Outcome | State | Duration | Credits | Session |',
    '| --: | --- | --- | --- | --: | --: | --- |',
];
function rowOf(task, view) {
    const running = view.kind === 'running';
    const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? '';
    const duration = task.startedAt !== undefined && task.endedAt !== undefined && hasEnded(task)
        ? formatDuration(task.endedAt - task.startedAt)
        : '';
    const credits = running && !hasEnded(task) ? undefined : treeCostOf(task.run, task.children).credits;
    const link = safeHttpUrl(task.run?.session_link);
    return [
        '',
        String(task.index + 1),
        inlineText(clip(title, 79)),
        taskWords(task, running),
        task.run?.state ? inlineText(task.run.state) : '',
        duration,
        credits !== undefined ? formatCredits(credits) : '',
        link ? `[open](${link})` : '',
        '',
    ]
        .join(' | ')
        .trim();
}
function renderSetTable(view, maxChars = Number.POSITIVE_INFINITY, rest = 'the job summary lists every one') {
    const tasks = tasksOf(view);
    const lines = [...TABLE_HEAD];
    let length = lines.join('\n').length;
    for (const [shown, task] of tasks.entries()) {
        const row = rowOf(task, view);
        if (length + row.length + 1 + MORE_ROWS_ROOM > maxChars) {
            const more = tasks.length - shown;
            return `${lines.join('\n')}\n\n_\u2026and ${more} more ${more === 1 ? 'task' : 'tasks'}: ${rest}._`;
        }
        lines.push(row);
        length += row.length + 1;
    }
    return lines.join('\n');
}
const MORE_ROWS_ROOM = 80;
function renderSetReasons(view, maxChars = Number.POSITIVE_INFINITY) {
    const lines = [];
    let length = 0;
    for (const task of tasksOf(view)) {
        if (!hasEnded(task) || outcomeWordOfRun(task) === 'succeeded')
            continue;
        const reason = set_table_reasonOf(task);
        if (!reason)
            continue;
        const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? '';
        const line = `- **${task.index + 1}** ${inlineText(clip(title, 79))}: ${inlineText(clip(reason, 300))}`;
        if (length + line.length + 1 > maxChars)
            break;
        lines.push(line);
        length += line.length + 1;
    }
    return lines.join('\n');
}
function notSucceededTasks(tasks, shown = 3) {
    const failed = tasks.flatMap((task) => {
        const word = outcomeWordOfRun(task);
        return hasEnded(task) && word !== 'succeeded' && word !== 'not_started' ? [{ task, word }] : [];
    });
    const named = failed.slice(0, shown).map(({ task, word }) => {
        const reason = set_table_reasonOf(task) ??
            (task.stoppedBy === 'pass-when' ? 'the set could no longer pass' : undefined);
        const because = reason ? ` (${clip(reason, 200).replace(/\.$/, '')})` : '';
        return `${taskLabel(task)} ${OUTCOME_RECORDS[word].short}${because}`;
    });
    const more = failed.length - named.length;
    return [...named, ...(more > 0 ? [`and ${more} more`] : [])].join('; ');
}
function set_table_reasonOf(task) {
    if (task.invalidOutput)
        return `the agent's result ${describeInvalidOutput(task.invalidOutput)}`;
    return task.createError ?? (task.run ? run_item_statusMessageOf(task.run) : undefined);
}
function tasksOf(view) {
    return view.kind === 'running' ? view.tasks : view.outcome.tasks;
}
function setCounts(tasks) {
    let succeeded = 0;
    let done = 0;
    let inFlight = 0;
    for (const task of tasks) {
        if (hasEnded(task)) {
            done += 1;
            if (standingOf(task) === 'succeeded')
                succeeded += 1;
        }
        else if (task.invocation !== undefined)
            inFlight += 1;
    }
    return { total: tasks.length, done, succeeded, inFlight };
}
function setStarted(tasks) {
    return tasks.filter(isDetached).length;
}
function setHeadline(view) {
    const tasks = tasksOf(view);
    const counts = setCounts(tasks);
    if (view.kind === 'running') {
        const failed = counts.done - counts.succeeded;
        const credits = sumCredits(tasks.filter(hasEnded));
        return {
            icon: '\u23f3',
            title: `${counts.done} of ${counts.total} done`,
            figures: [
                `${counts.succeeded} succeeded${failed > 0 ? `, ${failed} did not` : ''}`,
                `${counts.inFlight} in flight`,
                ...(credits !== undefined ? [`${formatCredits(credits)} by the runs done`] : []),
            ],
        };
    }
    const credits = sumCredits(tasks);
    const { word } = view.outcome;
    if (word === 'started') {
        const started = setStarted(tasks);
        const failed = counts.done;
        return {
            icon: OUTCOME_RECORDS.started.icon,
            title: 'started',
            figures: [
                `${started} of ${counts.total} runs started and handed over${failed > 0 ? `, ${failed} could not be created` : ''}`,
            ],
            reason: `${capitalized(view.outcome.reason)}.`,
        };
    }
    return {
        icon: OUTCOME_RECORDS[word].icon,
        title: word.replace('_', ' '),
        figures: [
            `${counts.succeeded} of ${counts.total} runs succeeded`,
            `\u23f1 ${formatDuration(view.outcome.elapsedMs)}`,
            ...(credits !== undefined ? [`${formatCredits(credits)} in all`] : []),
        ],
        reason: `${capitalized(view.outcome.reason)}.`,
    };
}
function renderSetSummary(outcome, downloaded = []) {
    const view = { kind: 'ended', outcome };
    const headline = setHeadline(view);
    const table = renderSetTable(view, SUMMARY_TABLE_CHARS, 'the runs output lists every one');
    const count = outcome.tasks.length;
    const lines = [
        `## ${headline.icon} Cloud agent tasks: ${headline.title}`,
        '',
        `${headline.figures.join(' \u00b7 ')}. ${inlineText(headline.reason ?? '')}`,
        '',
        ...(count > set_table_OPEN_ROWS
            ? [
                '<details>',
                `<summary>The ${count} tasks, one row each (the runs output has them as data)</summary>`,
                '',
                table,
                '',
                '</details>',
            ]
            : [table]),
    ];
    const reasons = renderSetReasons(view, SUMMARY_REASONS_CHARS);
    if (reasons)
        lines.push('', reasons);
    const started = renderStartedRuns(outcome.tasks);
    if (started)
        lines.push('', started);
    if (downloaded.length > 0)
        lines.push('', renderDownloadedFolders(downloaded));
    if (outcome.listFallback)
        lines.push('', LIST_FALLBACK_NOTE);
    return `${lines.join('\n')}\n`;
}
const set_table_OPEN_ROWS = 50;
const SUMMARY_TABLE_CHARS = 600_000;
const SUMMARY_REASONS_CHARS = 150_000;
function renderStartedRuns(tasks) {
    const blocks = tasks.flatMap((task) => {
        const block = childRunsBlock(task.children);
        return block ? [`**Task ${task.index + 1}**\n\n${block}`] : [];
    });
    return blocks.length > 0 ? blocks.join('\n\n') : undefined;
}
const FOLDERS_SHOWN = 100;
function renderDownloadedFolders(downloaded) {
    const lines = ['**Downloaded files**', ''];
    for (const { task, dir, files } of downloaded.slice(0, FOLDERS_SHOWN)) {
        const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? '';
        const count = `${files} ${files === 1 ? 'file' : 'files'}`;
        lines.push(`- **${task.index + 1}** ${inlineText(clip(title, 79))}: ${count} in <code>${escapeMarkdown(dir)}</code>`);
    }
    const more = downloaded.length - FOLDERS_SHOWN;
    if (more > 0)
        lines.push(`- \u2026 and ${more} more; the runs output lists every file's path`);
    return lines.join('\n');
}
const LIST_FALLBACK_NOTE = "The service's plan cannot filter runs by metadata, so each run was read on its own at every poll.";
function renderSetComment(view, workflowRun, maxChars) {
    const headline = setHeadline(view);
    const link = safeHttpUrl(workflowRun);
    const head = [
        `### ${headline.icon} Cloud agent tasks: ${headline.title}`,
        headline.figures.join(' \u00b7 '),
        ...(headline.reason ? [inlineText(headline.reason)] : []),
        ...(link ? [`[Workflow run](${link})`] : []),
    ].join('\n\n');
    const reasons = renderSetReasons(view, maxChars / 10);
    const table = renderSetTable(view, maxChars - head.length - reasons.length - 4);
    return [head, table, ...(reasons ? [reasons] : [])].join('\n\n');
}
function renderSetCheck(outcome, maxChars) {
    const view = { kind: 'ended', outcome };
    const headline = setHeadline(view);
    const { word } = outcome;
    const head = [
        `${inlineText(headline.reason ?? '')} Outcome: \`${word}\`.`,
        headline.figures.join(' \u00b7 '),
    ].join('\n\n');
    const reasons = renderSetReasons(view, maxChars / 10);
    const table = renderSetTable(view, maxChars - head.length - reasons.length - 4);
    return {
        conclusion: OUTCOME_RECORDS[word].check.conclusion,
        title: `${capitalized(headline.title)}: ${headline.figures[0]}`,
        summary: [head, table, ...(reasons ? [reasons] : [])].join('\n\n'),
    };
}
function setStatusOf(view) {
    const headline = setHeadline(view);
    if (view.kind === 'running') {
        return { state: 'pending', description: `${headline.title}: ${headline.figures[0]}` };
    }
    const { word, handedOver } = view.outcome;
    if (word === 'started') {
        return {
            state: OUTCOME_RECORDS.started.commitState,
            description: `Started ${setStarted(view.outcome.tasks)} of ${view.outcome.tasks.length} runs; this step does not wait for them (set ${handedOver ?? ''})`,
        };
    }
    return {
        state: OUTCOME_RECORDS[word].commitState,
        description: `${capitalized(headline.title)}: ${view.outcome.reason}`,
    };
}
function capitalized(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}

;// CONCATENATED MODULE: ./src/summary/set.ts










function runsOutput(tasks, work) {
    const answerBytes = Math.floor(RESULT_OUTPUT_LIMIT_BYTES / Math.max(1, tasks.length));
    const entries = tasks.map((task) => {
        const credits = treeCostOf(task.run, task.children).credits;
        const done = work.get(task.index);
        const answer = done?.answer;
        const artifacts = artifactsOutput(done?.artifacts ?? parseArtifacts(task.run?.artifacts), done?.downloadedTo);
        return {
            task: task.index,
            ...(task.runId ? { run_id: task.runId } : {}),
            ...(task.run?.title || task.request.title
                ? { title: task.run?.title ?? task.request.title }
                : {}),
            ...(task.run?.state ? { state: task.run.state } : {}),
            outcome: outcomeWordOfRun(task),
            ...(task.run?.session_link ? { session_link: task.run.session_link } : {}),
            ...(answer !== undefined ? { result: capResult(answer, answerBytes).text } : {}),
            ...(credits !== undefined ? { credits } : {}),
            ...(task.document !== undefined ? { structured_output: task.document } : {}),
            ...(artifacts.length > 0 ? { artifacts } : {}),
        };
    });
    return jsonOutput('runs', entries, () => ({
        value: entries.map((entry) => ({
            ...entry,
            title: undefined,
            result: undefined,
            structured_output: undefined,
            artifacts: undefined,
            truncated: true,
        })),
        keeps: 'each task without its title, result, structured_output and artifacts, with "truncated": true',
    }));
}
async function publishSetOutcome(io, outcome, work) {
    const { word } = outcome;
    io.setOutput('outcome', word);
    setJsonOutput(io, 'runs', runsOutput(outcome.tasks, work));
    const credits = sumCredits(outcome.tasks);
    if (credits !== undefined)
        io.setOutput('credits', formatNumberOutput(credits));
    const usd = sumUsd(outcome.tasks);
    if (usd !== undefined)
        io.setOutput('cost_usd', formatNumberOutput(usd));
    try {
        await io.appendSummary(renderSetSummary(outcome, downloadedFolders(outcome.tasks, work)));
    }
    catch (error) {
        io.warning(`Could not write the job summary: ${safeForLog(String(error))}`);
    }
    const [tally] = setHeadline({ kind: 'ended', outcome }).figures;
    const line = `The set ${word.replace('_', ' ')}: ${tally}; ${safeForLog(outcome.reason)}.`;
    if (OUTCOME_RECORDS[word].passes)
        return io.info(line);
    const names = notSucceededTasks(outcome.tasks);
    io.setFailed(names ? `${line} Not succeeded: ${safeForLog(names, 1_000)}.` : line);
}
function downloadedFolders(tasks, work) {
    return tasks.flatMap((task) => {
        const done = work.get(task.index);
        const files = done?.downloadedTo?.size ?? 0;
        return done?.downloadDir && files > 0 ? [{ task, dir: done.downloadDir, files }] : [];
    });
}

;// CONCATENATED MODULE: ./src/run/set.ts









class TaskSetRun {
    #settings;
    #deps;
    #tasks;
    #runs;
    constructor(settings, deps) {
        this.#settings = settings;
        this.#deps = deps;
        this.#tasks = settings.tasks.map((request, index) => ({ index, request }));
        const runs = new TrackedRuns(deps.state);
        const { client, now, sleep, signal, log } = deps;
        const lifecycles = this.#tasks.map((task) => new RunLifecycle({
            target: { kind: 'create', request: task.request },
            record: task,
            tag: deps.tagFor(task.index),
            name: taskName(task),
            wait: settings.wait ?? true,
            startFailure: 'record',
            checkResult: deps.checkFor?.(task, taskName(task)),
            ...continueRunOf(settings, task.index),
            caps: settings.taskCaps?.[task.index] ?? [],
        }, {
            client,
            tracker: runs.track(),
            now,
            sleep,
            signal,
            log,
            watch: deps.watchFor?.(task, taskName(task)),
        }));
        this.#runs = new StepRuns(lifecycles, settings, {
            client,
            now,
            sleep,
            signal,
            log,
            listMetadata: deps.setMetadata,
            onProgress: () => deps.onProgress?.(this.#tasks),
            announceStop: (stop, inFlight, notStarted) => this.#announceStop(stop, notStarted),
        });
    }
    get tasks() {
        return this.#tasks;
    }
    async run(interruption) {
        this.#deps.state.markSet();
        this.#deps.log.info(`Starting ${this.#tasks.length} runs, at most ${this.#settings.maxParallel} at once; the step passes when ${describePassWhen(this.#settings.passWhen, this.#tasks.length)} succeed.`);
        if (this.#settings.cancelPrevious)
            await this.#cancelPrevious(this.#settings.cancelPrevious);
        const end = await this.#runs.execute(interruption);
        const { elapsedMs } = end.schedule;
        const outcome = this.#outcome(end.signal ? { kind: 'interrupted', elapsedMs } : end.schedule);
        return outcome.word === 'failed' ? await this.#supersededOr(outcome) : outcome;
    }
    async #supersededOr(failed) {
        const replaced = await this.#runs.replaced();
        if (!replaced)
            return failed;
        const { newer, record } = replaced;
        const task = this.#tasks.find((one) => one === record);
        const whose = task ? `${taskLabel(task)}'s run` : 'a run of it';
        const reason = `a newer run with the same name (${newer.run_id}) replaced ${whose} (previous_run: cancel)`;
        return { ...failed, word: 'superseded', reason, newer };
    }
    async #cancelPrevious(input) {
        const { client, log, now } = this.#deps;
        const deadline = now() + this.#settings.timeoutMs;
        const asks = new Map();
        for (const [index, task] of this.#tasks.entries()) {
            const name = task.request.config?.name ?? '';
            const home = homeOfTag(this.#deps.tagFor(index).metadata);
            if (name)
                asks.set(`${home.forge ?? ''} ${home.project ?? ''}\n${name}`, { name, home });
        }
        for (const { name, home } of asks.values()) {
            if (this.#deps.signal.aborted)
                return;
            await cancelPreviousRuns(client, { name, home, input }, log, { deadline });
        }
    }
    #announceStop(stop, notStarted) {
        const stoppable = this.#tasks.filter((task) => task.runId !== undefined && task.endedAt === undefined && !task.settled);
        if (stoppable.length === 0 && notStarted === 0)
            return;
        const names = stoppable.map((task) => `${safeForLog(taskLabel(task), 200)} (run ${task.runId})`);
        this.#deps.log.warning(`Stopping the set: ${stop.reason}. Cancelling ${names.length > 0 ? names.join(', ') : 'no run in flight'}${notStarted > 0 ? `; ${notStarted} task(s) not started will not be` : ''}.`);
    }
    #outcome(end) {
        const base = {
            tasks: this.#tasks,
            elapsedMs: end.elapsedMs,
            listFallback: this.#runs.listFallback,
        };
        if (end.kind === 'interrupted') {
            return { ...base, word: 'interrupted', reason: 'the workflow cancelled the step' };
        }
        if (end.kind === 'stopped') {
            const { why, reason } = end.stop;
            return {
                ...base,
                word: why.kind === 'pass-when' ? 'failed' : outcomeOfStop(why.kind),
                reason,
            };
        }
        const rule = describePassWhen(this.#settings.passWhen, this.#tasks.length);
        const setId = this.#deps.setMetadata[SET_KEY];
        if (this.#settings.wait === false && setId && this.#tasks.some(isDetached)) {
            return {
                ...base,
                word: 'started',
                reason: `the step does not wait for its runs (wait: false); a reconcile pass reports the set once the last has ended (it passes when ${rule} succeed)`,
                handedOver: setId,
            };
        }
        const standing = passWhenStanding(this.#settings.passWhen, this.#runs.counts());
        const reason = `the step asked for ${rule}`;
        return { ...base, word: standing === 'met' ? 'succeeded' : 'failed', reason };
    }
}
function taskName(task) {
    const label = safeForLog(taskLabel(task), 200);
    return label.charAt(0).toUpperCase() + label.slice(1);
}
function continueRunOf(settings, index) {
    const known = settings.continueRuns?.[index];
    return known ? { continueRun: known } : {};
}

;// CONCATENATED MODULE: ./src/step/set-surfaces.ts








class SetSurfaces {
    #comment;
    #status;
    #checkRun;
    #workflowRun;
    commit;
    #checkRunDone;
    constructor(parts, workflowRun) {
        this.#comment = parts.comment;
        this.#status = parts.status;
        this.#checkRun = parts.checkRun;
        this.commit = parts.commit;
        this.#workflowRun = workflowRun;
    }
    static async open(settings, github, set, io) {
        const state = savedState(io);
        const comment = await openSetComment(settings.github, github, io, {
            set,
            onCommentChosen: (commentId) => state.saveSetComment({ commentId, set }),
        });
        const { checkRun: checks } = settings.output;
        const commit = settings.github.commitStatus || checks ? await resolveWorkCommit(github, io) : undefined;
        const { status, checkRun } = await openCommitSurfaces(settings.github, checks, github, commit, io, state);
        return new SetSurfaces({ comment, status, checkRun, commit: commit?.sha }, github.workflowRun);
    }
    showRunning(tasks) {
        this.#show({ kind: 'running', tasks });
    }
    showEnd(outcome) {
        this.#show({ kind: 'ended', outcome });
    }
    async showWork() {
        await Promise.all([this.#comment?.settled(), this.#status?.settled(), this.#checkRunDone]);
    }
    #show(view) {
        if (this.#comment) {
            const tasks = view.kind === 'running' ? view.tasks : view.outcome.tasks;
            const { done, total } = setCounts(tasks);
            const handedOff = tasks.flatMap((task) => task.handedOff && task.runId !== undefined ? [task.runId] : []);
            this.#comment.show({
                body: renderSetComment(view, this.#workflowRun, SET_COMMENT_TABLE_CHARS),
                outcome: view.kind === 'ended' ? view.outcome.word : undefined,
                done,
                total,
                ...(handedOff.length > 0 ? { handedOff } : {}),
            });
        }
        const status = setStatusOf(view);
        const newer = view.kind === 'ended' ? view.outcome.newer : undefined;
        if (!newer || newer.metadata?.gh_head_sha !== this.commit)
            this.#status?.show({
                state: status.state,
                description: oneLine(status.description),
                targetUrl: this.#workflowRun,
            }, view.kind === 'ended');
        if (view.kind === 'ended' && this.#checkRun && !this.#checkRunDone) {
            this.#checkRunDone = this.#checkRun.finish(renderSetCheck(view.outcome, CHECK_SUMMARY_CHARS));
        }
    }
    static async showStopped(stopped) {
        const { saved, ended, settings, world, io } = stopped;
        const left = ended.length;
        if (left === 0)
            return await SetSurfaces.#finishLeftCheckRun(stopped);
        const cancelled = ended.filter((one) => one?.report.kind === 'cancelled').length;
        const runs = (count) => `${count} ${count === 1 ? 'run' : 'runs'}`;
        const note = `The step stopped before the set ended; the post step cancelled ${runs(cancelled)} it left unfinished${cancelled < left ? ` (of ${left})` : ''}. The table shows the runs as the step last saw them.`;
        const setComment = settings.github.comment ? saved.setComment : undefined;
        const statusSha = settings.github.commitStatus ? saved.statusSha : undefined;
        const checks = checkRunLeft(saved);
        if (!setComment && !statusSha && !checks)
            return;
        const context = new GitHubContext(settings.github.token, world);
        const comment = setComment
            ? await openSetComment(settings.github, context, io, setComment)
            : undefined;
        const status = statusSha
            ? await openCommitStatus(settings.github, context, { sha: statusSha }, io)
            : undefined;
        status?.show({ state: 'error', description: oneLine(note) });
        const report = stoppedCheckReport(note, cancelled > 0, 'the runs left were');
        await Promise.all([
            comment?.markStopped(note),
            status?.settled(),
            checks ? finishLeftCheckRun(settings.github, context, saved, report, io) : undefined,
        ]);
    }
    static async #finishLeftCheckRun({ saved, settings, world, io }) {
        if (!checkRunLeft(saved))
            return;
        const context = new GitHubContext(settings.github.token, world);
        const stopped = stoppedCheckReport(SET_STEP_STOPPED, false);
        await finishLeftCheckRun(settings.github, context, saved, stopped, io);
    }
}
SetSurfaces;
const SET_STEP_STOPPED = "The step stopped before it reported the set; none of its runs was left going. The workflow run's log says why.";

;// CONCATENATED MODULE: ./src/step/task-set.ts





























async function taskSetShape(settings) {
    const outputs = await prepareTaskOutputs(settings);
    return {
        settings,
        admit: async (world) => {
            const github = new GitHubContext(settings.github.token, world);
            return { github, creates: true, prepare: (start) => task_set_prepare(settings, outputs, start) };
        },
    };
}
async function prepareTaskOutputs(settings) {
    const step = await prepareOutput(settings.output);
    const outputs = [];
    for (const own of settings.taskSchemas) {
        outputs.push(own ? await prepareOutput({ ...settings.output, schema: own }) : step);
    }
    return outputs;
}
async function task_set_prepare(given, givenOutputs, start) {
    const applied = await applyCampaign(given, givenOutputs, start);
    const { settings } = applied;
    if (settings.tasks.length === 0)
        return undefined;
    const { world, home, github, io } = start;
    const setId = (0,external_node_crypto_namespaceObject.randomUUID)();
    const surfaces = await SetSurfaces.open(settings, github, setId, io);
    const handoff = setHandoff(settings.github, home, {
        wait: settings.wait,
        tasks: settings.tasks.length,
        passWhen: passWhenText(settings.passWhen),
    });
    const deadline = settings.wait
        ? new Date(Date.now() + settings.timeoutMs).toISOString()
        : undefined;
    const limits = limitsTag(deadline ? { deadline } : {});
    const stepTag = runTag(world, () => setId, surfaces.commit ?? home.head, {
        ...handoff,
        ...limits,
    });
    const sources = agentWorkSources(start.client);
    const waitsEndBy = Date.now() + settings.timeoutMs + timing/* PAST_TIMEOUT_MS */.WP;
    const set = { ...start, ...applied, surfaces, stepTag, sources, waitsEndBy };
    return {
        execute: async (interruption) => {
            const outcome = await setRun(set, interruption).run(interruption);
            const unreachable = outcome.tasks.length > 0 && outcome.tasks.every((task) => task.createUnreachable === true);
            return { finish: () => task_set_finish(set, outcome, interruption), unreachable };
        },
    };
}
function setRun(set, interruption) {
    const { settings, outputs, surfaces, stepTag, sources, io } = set;
    const { signal } = interruption;
    const startedAt = Date.now();
    return new TaskSetRun({
        tasks: settings.tasks.map((task, index) => {
            const output = outputs[index];
            return output ? requestWithInstruction(task, output.instruction) : task;
        }),
        maxParallel: settings.maxParallel,
        passWhen: settings.passWhen,
        timeoutMs: settings.timeoutMs,
        pollIntervalMs: settings.pollIntervalMs,
        caps: bindingCaps(maxCreditsCap(settings.agentWork.maxCredits), ...(set.budgetCaps ?? [])),
        cancelPrevious: settings.cancelPrevious,
        continueRuns: set.continueRuns,
        taskCaps: set.taskCaps,
        wait: settings.wait,
    }, {
        client: set.client,
        now: Date.now,
        sleep: abortableSleep,
        signal,
        log: io,
        state: savedState(io),
        setMetadata: { [SET_KEY]: stepTag.invocation },
        tagFor: (index) => {
            const tag = taskTag(stepTag, index);
            if (settings.campaign === undefined)
                return tag;
            const repository = settings.repositories[index];
            return { ...tag, metadata: campaignTags(tag.metadata, settings.campaign, repository) };
        },
        onProgress: (tasks) => surfaces.showRunning(tasks),
        watchFor: (task, name) => taskWatcher(settings.agentWork, task, sources, { log: io, name }),
        checkFor: (task, name) => {
            const output = outputs[task.index];
            if (!output)
                return undefined;
            const deadline = startedAt + settings.timeoutMs;
            return documentCheck(output, {
                sources,
                retries: settings.output.retries,
                deadline,
                signal,
                now: Date.now,
                log: namedLog(io, name),
            });
        },
    });
}
const WORK_AT_ONCE = 16;
async function task_set_finish(set, outcome, interruption) {
    const { surfaces, io } = set;
    surfaces.showEnd(outcome);
    const work = new Map();
    if (OUTCOME_RECORDS[outcome.word].carriesAgentWork) {
        await eachAtMost(WORK_AT_ONCE, outcome.tasks, async (task) => {
            const one = await taskWork(task, set, interruption.signal);
            if (one)
                work.set(task.index, one);
        });
    }
    await surfaces.showWork();
    await publishSetOutcome(io, outcome, work);
}
async function taskWork(task, set, signal) {
    const { settings, world } = set;
    const outcome = outcomeOfRun(task, { elapsedMs: 0, timeoutMs: 0, caps: [] });
    if (outcome.kind === 'not-started')
        return undefined;
    const { downloadPatterns, artifactsDir } = settings.agentWork;
    const setDir = artifactsDir || defaultArtifactsDir(world.runnerTemp, set.stepTag.invocation);
    const taskDir = (0,external_node_path_namespaceObject.join)(setDir, taskFolderName(task.index, task.request.title));
    const work = await gatherAgentWork(outcome, {
        settings: { ...settings.agentWork, artifactsDir: downloadPatterns.length > 0 ? taskDir : '' },
        world,
        sources: set.sources,
        conversation: task.conversation,
        signal,
        endBy: set.waitsEndBy,
        log: taskLog(task, set.io),
        quietAnswer: true,
    });
    return work.artifacts ? { ...work, answer: work.answer, artifacts: work.artifacts } : undefined;
}
function taskLog(task, io) {
    const label = safeForLog(taskLabel(task), 200);
    return namedLog(io, label.charAt(0).toUpperCase() + label.slice(1));
}
async function applyCampaign(settings, outputs, start) {
    const { client, io } = start;
    const { campaign } = settings;
    if (campaign === undefined)
        return { settings, outputs, continueRuns: [], taskCaps: [] };
    const tasks = settings.tasks.map((task, index) => {
        const output = outputs[index];
        const sent = output ? requestWithInstruction(task, output.instruction) : task;
        const repository = settings.repositories[index];
        return { key: repository ? task.config?.name : undefined, prompt: sent.prompt ?? '' };
    });
    const deadline = Date.now() + settings.timeoutMs;
    const planned = await planCampaign(client, campaign, tasks, deadline);
    const budgets = await repositoryBudgets(settings, planned, start);
    const plan = planned.map((applied, index) => {
        const budget = budgets[index];
        if (budget === undefined || !('reached' in budget))
            return applied;
        return { kind: 'skip', why: `its daily_credit_budget is reached: ${budget.reached}` };
    });
    const kept = plan.flatMap((applied, index) => (applied.kind === 'skip' ? [] : [index]));
    const said = plan.flatMap((applied, index) => applied.kind === 'start'
        ? []
        : [{ key: tasks[index]?.key ?? '', done: applied.kind, why: applied.why }]);
    const taskCaps = budgets.map((budget) => (budget && 'caps' in budget ? budget.caps : undefined));
    if (said.length === 0)
        return { settings, outputs, continueRuns: [], taskCaps };
    for (const { key, done, why } of said) {
        io.info(`${safeForLog(key, 200)}: ${done === 'skip' ? 'skipped' : 'followed up'}, ${why}.`);
    }
    await io.appendSummary(campaignPlan(campaign, said, settings.tasks.length)).catch(() => { });
    const continueRuns = plan.map((applied, index) => {
        if (applied.kind !== 'follow-up')
            return undefined;
        const change = pullRequestUrlOf(applied.run) ?? 'its pull request';
        const message = campaignFollowUp(campaign, tasks[index]?.prompt ?? '', change);
        return { run: applied.run, message, change };
    });
    const pick = (list) => kept.flatMap((index) => list.slice(index, index + 1));
    const left = kept.length;
    const { passWhen } = settings;
    return {
        settings: {
            ...settings,
            tasks: pick(settings.tasks),
            taskSchemas: pick(settings.taskSchemas),
            repositories: pick(settings.repositories),
            passWhen: passWhen.kind === 'at-least' && passWhen.count > left
                ? { kind: 'at-least', count: Math.max(1, left) }
                : passWhen,
        },
        outputs: pick(outputs),
        continueRuns: pick(continueRuns),
        taskCaps: pick(taskCaps),
    };
}
async function repositoryBudgets(settings, plan, { client, home, io }) {
    const daily = settings.repositoryBudget;
    if (daily === undefined)
        return plan.map(() => undefined);
    const starting = plan.flatMap((applied, index) => (applied.kind === 'start' ? [index] : []));
    const homes = starting.map((index) => {
        const repository = settings.repositories[index];
        if (!repository)
            return { ...home, thread: undefined, change: undefined };
        const { forge, project } = repository;
        return { forge, project, thread: undefined, change: undefined };
    });
    const checked = await checkRepositoryBudgets(client, daily, homes, { now: Date.now, log: io });
    const byTask = plan.map(() => undefined);
    starting.forEach((task, index) => (byTask[task] = checked[index]));
    return byTask;
}

;// CONCATENATED MODULE: ./src/step/main.ts













async function run(io, inputs) {
    const tracker = new TrackedRuns(savedState(io)).track((runId) => io.setOutput('run_id', runId));
    const interruption = new Interruption({
        log: io,
        onSignal: (handler) => io.onTerminationSignal(handler),
        exit: (code) => io.exit(code),
        words: io.words,
    });
    io.setOutput('steered', 'false');
    try {
        const ended = await runStepBody(io, () => mainStep(inputs, io, tracker, interruption), () => ({ runId: tracker.runId }));
        const hadRun = tracker.runId !== undefined;
        if ('error' in ended)
            return { error: ended.error, hadRun };
        return { hadRun, unreachable: ended.value?.unreachable === true };
    }
    finally {
        interruption.stopListening();
    }
}
async function mainStep(inputs, io, tracker, interruption) {
    const cleanup = readCancelOnly(inputs);
    if (cleanup)
        return void (await cancelOnlyStep(cleanup, inputs.world, io));
    const shape = await readShape(inputs);
    const client = serviceClient(shape.settings, io);
    const admitted = await shape.admit(inputs.world, io);
    if (!admitted)
        return undefined;
    const { github } = admitted;
    const home = homeOf(inputs.world, githubThread(github));
    const start = {
        world: inputs.world,
        steering: inputs.steering,
        home,
        io,
        github,
        client,
        tracker,
    };
    const limits = { ...shape.settings.budgets, maxCredits: shape.settings.agentWork.maxCredits };
    const budget = admitted.creates ? await checkBudgets(limits, start) : { caps: [] };
    if (budget.reached)
        return undefined;
    interruption.listen();
    const step = await admitted.prepare({
        ...start,
        budgetCaps: budget.caps,
    });
    if (!step)
        return undefined;
    const ended = await step.execute(interruption);
    await ended.finish();
    return ended;
}
async function readShape(inputs) {
    const set = await readTaskSettings(inputs);
    return set ? await taskSetShape(set) : await oneRunShape(readSettings(inputs));
}
async function checkBudgets(budgets, { home, client, io }) {
    const deps = { now: Date.now, log: io };
    const check = await checkCreditBudgets(client, budgets, home, deps);
    if (check.reached)
        await publishOverBudget(io, check.reached.message);
    return check;
}

;// CONCATENATED MODULE: ./src/inputs/post-step.ts



function readPostSettings(source) {
    const connection = readConnection(source);
    const token = readGitHubToken(source);
    const comment = parseBoolean('comment', source.get('comment') || 'false');
    const commitStatus = parseBoolean('commit_status', source.get('commit_status') || 'false');
    const checkRun = parseBoolean('check_run', source.get('check_run') || 'false');
    return {
        ...connection,
        github: {
            token: comment || commitStatus || checkRun ? token : '',
            comment,
            commitStatus,
            key: conversationKey(source),
            commenterPermission: 'write',
            allowedBots: [],
            approval: 'none',
            approverPermission: 'write',
        },
    };
}

;// CONCATENATED MODULE: ./src/run/leftover.ts





function leftUnfinished(saved, log) {
    const left = saved.runs.filter((record) => !record.settled);
    if (left.length > 0)
        return left;
    const [only] = saved.runs;
    log.info(saved.ofSet
        ? 'Every run of the set ended or was cancelled in the main step; nothing to clean up.'
        : only?.runId
            ? `Run ${only.runId} ended or was handed off in the main step; nothing to clean up.`
            :
                'The main step saved no run for this step; nothing to clean up.');
    return [];
}
async function cancelLeftRun(left, deps, options = {}) {
    const { client, log } = deps;
    const runId = left.runId ?? (await findUnansweredRun(client, left.invocation ?? '', log));
    if (!runId)
        return undefined;
    const run = options.ofTheSet ? `run ${runId} of the set` : `run ${runId}`;
    log.info(deps.leftGoing(run));
    const why = { kind: 'post' };
    const report = await cancelRun({
        runId,
        why,
        deadline: cancelDeadline(why, Date.now()),
        mayRestart: () => left.awaitingNewPass === true,
    }, { client, now: Date.now, sleep: abortableSleep, log });
    if (report.kind === 'failed')
        deps.setFailed(describeCancel(runId, report));
    else
        logCancel(log, runId, report);
    return { runId, report };
}
async function findUnansweredRun(client, invocation, log) {
    log.info(`The answer to the create request never came, so the run it made is not known; looking for a run tagged ${INVOCATION_KEY}=${invocation}.`);
    const search = await searchForCreatedRun(invocation, {
        client,
        now: Date.now,
        sleep: abortableSleep,
        log,
        pausesMs: steadyPauses(timing/* CREATE_LOOKUP */.qS.postPauseMs),
        deadline: Date.now() + timing/* CREATE_LOOKUP */.qS.postDeadlineMs,
    });
    switch (search.kind) {
        case 'found':
            return search.run.run_id;
        case 'ambiguous':
            log.warning(`Runs ${search.runIds.join(', ')} all carry ${INVOCATION_KEY}=${invocation}; none is cancelled. Check them by hand.`);
            return undefined;
        case 'none':
            log.warning(`No run tagged ${INVOCATION_KEY}=${invocation} was found within ${timing/* CREATE_LOOKUP */.qS.postDeadlineMs / 1000}s (${search.lastProblem}). ` +
                'The create request may still have made one: search the runs for that metadata, and cancel it if it is there.');
            return undefined;
    }
}

;// CONCATENATED MODULE: ./src/step/post.ts







async function post_run(io, inputs) {
    await runStepBody(io, async () => {
        const saved = readSavedRun(io);
        const left = leftUnfinished(saved, io);
        if (left.length === 0 && !checkRunLeft(saved))
            return;
        const settings = readPostSettings(inputs);
        const deps = leftoverDeps(settings, io);
        const ofTheSet = saved.ofSet;
        const ended = await Promise.all(left.map((record) => cancelLeftRun(record, deps, { ofTheSet })));
        const surfaces = ofTheSet ? SetSurfaces : RunSurfaces;
        await surfaces.showStopped({
            saved,
            ended,
            settings,
            world: inputs.world,
            client: deps.client,
            io,
        });
    });
}
function leftoverDeps(settings, io) {
    const client = serviceClient(settings, io, { maxRetries: 5 });
    const { setFailed, words } = io;
    return { client, log: io, setFailed, leftGoing: words.leftGoing };
}

;// CONCATENATED MODULE: ./src/model/pull-status.ts
function pullAddressOf(url) {
    let path;
    try {
        path = new URL(url).pathname.replace(/\/+$/, '');
    }
    catch {
        return undefined;
    }
    const match = /^\/([\w.-]+)\/([\w.-]+)\/pull\/([1-9]\d{0,8})$/.exec(path);
    if (!match?.[1] || !match[2] || !match[3])
        return undefined;
    return { url, owner: match[1], repo: match[2], number: Number(match[3]) };
}
function pullStateOf(pull) {
    if (pull.merged_at)
        return 'merged';
    if (pull.state === 'closed')
        return 'closed';
    return pull.draft ? 'draft' : 'open';
}
const FAILED = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'startup_failure']);
function checksOf(runs) {
    if (runs.length === 0)
        return 'none';
    if (runs.some((run) => FAILED.has(run.conclusion ?? '')))
        return 'failing';
    if (runs.some((run) => run.status !== 'completed'))
        return 'pending';
    return 'passing';
}
function reviewOf(reviews) {
    const latest = new Map();
    for (const review of reviews) {
        const who = review.user?.login ?? '';
        if (review.state === 'APPROVED' || review.state === 'CHANGES_REQUESTED') {
            latest.set(who, review.state);
        }
        else if (review.state === 'DISMISSED') {
            latest.delete(who);
        }
    }
    const states = [...latest.values()];
    if (states.includes('CHANGES_REQUESTED'))
        return 'changes_requested';
    return states.includes('APPROVED') ? 'approved' : 'none';
}

;// CONCATENATED MODULE: ./src/github/pull-states.ts




const PARALLEL = 8;
async function readPullStatuses(octokit, pulls, deadline, options = {}) {
    const { now = Date.now, stateOnly = false } = options;
    const statuses = new Map();
    let stopped;
    await eachAtMost(PARALLEL, pulls, async (pull) => {
        const left = deadline - now();
        if (stopped || left <= 0) {
            statuses.set(pull.url, { unknown: stopped ?? 'the report ran out of time to read it' });
            return;
        }
        try {
            statuses.set(pull.url, await readOne(octokit, pull, Math.min(left, timing/* GITHUB_CALL_DEADLINE_MS */.vt), stateOnly));
        }
        catch (error) {
            const why = whyUnknown(error);
            if (isRateLimit(error))
                stopped ??= why;
            statuses.set(pull.url, { unknown: why });
        }
    });
    return statuses;
}
async function readOne(octokit, pull, ms, stateOnly) {
    const at = { owner: pull.owner, repo: pull.repo };
    const { data } = await octokit.rest.pulls.get({
        ...at,
        pull_number: pull.number,
        ...withDeadline(ms),
    });
    const state = pullStateOf(data);
    const dates = {
        createdAt: data.created_at,
        mergedAt: data.merged_at ?? '',
        closedAt: data.closed_at ?? '',
    };
    if (state === 'merged' || state === 'closed' || stateOnly) {
        return { state, checks: undefined, review: undefined, ...dates };
    }
    const [checks, reviews] = await Promise.all([
        octokit.rest.checks.listForRef({
            ...at,
            ref: data.head.sha,
            filter: 'latest',
            per_page: 100,
            ...withDeadline(ms),
        }),
        octokit.rest.pulls.listReviews({
            ...at,
            pull_number: pull.number,
            per_page: 100,
            ...withDeadline(ms),
        }),
    ]);
    return {
        state,
        checks: checksOf(checks.data.check_runs),
        review: reviewOf(reviews.data),
        ...dates,
    };
}
function isRateLimit(error) {
    const { status, message, response } = error;
    if (status === 429)
        return true;
    const headers = response?.headers ?? {};
    return (status === 403 &&
        (headers['x-ratelimit-remaining'] === '0' ||
            headers['retry-after'] !== undefined ||
            /rate limit/i.test(message ?? '')));
}
function whyUnknown(error) {
    if (isRateLimit(error))
        return "GitHub's rate limit was reached";
    const status = error.status;
    if (status === 404 || status === 401 || status === 403) {
        return 'github_token cannot read it';
    }
    return `GitHub did not answer (${reasonOf(error)})`;
}

;// CONCATENATED MODULE: ./src/report/period.ts
const DAY_MS = 24 * 60 * 60_000;
const HOUR_MS = 60 * 60_000;
const MONTHS = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
];
function parsePeriod(text, now) {
    const duration = /^(\d{1,4})([hd])$/.exec(text);
    if (duration) {
        const count = Number(duration[1]);
        const unit = duration[2] === 'h' ? HOUR_MS : DAY_MS;
        if (count < 1 || count * unit > 366 * DAY_MS)
            return undefined;
        const noun = duration[2] === 'h' ? 'hour' : 'day';
        return {
            from: now - count * unit,
            to: now,
            label: count === 1 ? `the last ${noun}` : `the last ${count} ${noun}s`,
        };
    }
    if (text === 'last-month') {
        const today = new Date(now);
        const from = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1);
        return monthOf(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth());
    }
    const month = /^(\d{4})-(\d{2})$/.exec(text);
    if (month) {
        const year = Number(month[1]);
        const index = Number(month[2]) - 1;
        if (index < 0 || index > 11)
            return undefined;
        if (Date.UTC(year, index, 1) > now)
            return undefined;
        return monthOf(year, index);
    }
    return undefined;
}
function monthOf(year, index) {
    const from = Date.UTC(year, index, 1);
    return { from, to: Date.UTC(year, index + 1, 1), label: `${MONTHS[index]} ${year}` };
}
function daysOf(period) {
    const days = [];
    const first = Math.floor(period.from / DAY_MS) * DAY_MS;
    for (let day = first; day < period.to; day += DAY_MS) {
        days.push(new Date(day).toISOString().slice(0, 10));
    }
    return days;
}

;// CONCATENATED MODULE: ./src/report/repositories.ts



function repositoryOf(row) {
    return row.forge ? repositoryName({ forge: row.forge, project: row.project }) : row.project;
}
function trackCampaign(rows, statuses, period, notRead) {
    const byRepository = new Map();
    for (const row of rows) {
        const name = repositoryOf(row);
        const list = byRepository.get(name);
        if (list)
            list.push(row);
        else
            byRepository.set(name, [row]);
    }
    const lines = [...byRepository]
        .map(([repository, own]) => lineOf(repository, own, (url) => statuses.get(url) ?? { unknown: notRead(url) }))
        .sort((a, b) => a.repository.localeCompare(b.repository));
    const pullRequests = { draft: 0, open: 0, merged: 0, closed: 0, unknown: 0 };
    let checksFailing = 0;
    let changesRequested = 0;
    for (const line of lines) {
        if (!line.pullRequest)
            continue;
        const status = line.status;
        if (!status || 'unknown' in status) {
            pullRequests.unknown += 1;
            continue;
        }
        pullRequests[status.state] += 1;
        if (status.checks === 'failing')
            checksFailing += 1;
        if (status.review === 'changes_requested')
            changesRequested += 1;
    }
    return {
        repositories: lines.length,
        pullRequests,
        checksFailing,
        changesRequested,
        burndown: burndownOf(lines, period),
        lines,
    };
}
function lineOf(repository, rows, statusOf) {
    const newestFirst = [...rows].sort((a, b) => b.created.localeCompare(a.created) || b.runId.localeCompare(a.runId));
    const trees = newestFirst.filter((row) => row.parentRunId === '');
    const latest = trees[0] ?? newestFirst[0];
    const opened = newestFirst.find((row) => row.pullRequest)?.pullRequest?.url ?? '';
    let credits = 0;
    let usd = 0;
    for (const row of rows) {
        credits += row.credits;
        usd += row.costUsd ?? 0;
    }
    return {
        repository,
        forge: latest?.forge,
        project: latest?.project ?? '',
        runs: trees.length,
        credits: roundTo(credits, 4),
        costUsd: roundTo(usd, 4),
        runId: latest?.runId ?? '',
        outcome: latest?.outcome ?? '',
        link: latest?.link ?? '',
        pullRequest: opened,
        status: opened ? statusOf(opened) : undefined,
    };
}
function burndownOf(lines, period) {
    const known = lines.flatMap((line) => line.status && !('unknown' in line.status) ? [line.status] : []);
    return daysOf(period).map((day) => {
        const end = `${day}T23:59:59.999Z`;
        let open = 0;
        let merged = 0;
        for (const pull of known) {
            if (!pull.createdAt || pull.createdAt > end)
                continue;
            if (pull.mergedAt && pull.mergedAt <= end)
                merged += 1;
            else if (!pull.closedAt || pull.closedAt > end)
                open += 1;
        }
        return { day, open, merged };
    });
}

;// CONCATENATED MODULE: ./src/report/campaign.ts




async function readCampaignTracking(rows, what, deps) {
    const pulls = new Map();
    for (const row of rows) {
        const address = row.pullRequest ? pullAddressOf(row.pullRequest.url) : undefined;
        if (address)
            pulls.set(address.url, address);
    }
    const notRead = (url) => !pulls.has(url)
        ? 'a merge request is not read'
        : what.githubToken
            ? 'not read'
            : 'no github_token to read it';
    if (pulls.size === 0 || !what.githubToken) {
        return trackCampaign(rows, new Map(), what.period, notRead);
    }
    const octokit = await loadOctokit(what.githubToken, what.apiUrl);
    const statuses = await readPullStatuses(octokit, [...pulls.values()], deps.deadline);
    const unknown = [...statuses.values()].filter((status) => 'unknown' in status).length;
    deps.log.info(`Read ${pulls.size - unknown} of ${pulls.size} pull requests' state, checks and review from GitHub.`);
    return trackCampaign(rows, statuses, what.period, notRead);
}

;// CONCATENATED MODULE: ./src/report/rows.ts








function madeByTheAction(run) {
    return typeof run.metadata?.[INVOCATION_KEY] === 'string';
}
function rows_rowOf(run) {
    const metadata = stringsOf(run.metadata);
    const home = homeOfTag(metadata);
    const cost = costOf(run.request_usage);
    const outcome = rows_outcomeOf(run, cost);
    const ended = outcome === 'working' ? '' : (run.updated_at ?? '');
    const opened = pullRequestUrlOf(run);
    return {
        runId: run.run_id,
        title: typeof run.title === 'string' ? run.title : '',
        created: run.created_at ?? '',
        ended,
        forge: home.forge,
        project: home.project ?? '',
        thread: home.thread,
        workflow: metadata[STEP_KEYS.workflow] ?? '',
        key: metadata[HANDOFF_KEYS.key] ?? run.agent_config?.name ?? '',
        outcome,
        credits: cost.credits ?? 0,
        costUsd: cost.usd,
        pullRequest: opened ? { url: opened, number: numberOf(opened, home.project) } : undefined,
        link: typeof run.session_link === 'string' ? run.session_link : '',
        steered: metadata[HANDOFF_KEYS.steer] === 'true',
        rootRunId: rootIdOf(run),
        parentRunId: isChildRun(run) ? (run.parent_run_id ?? rootIdOf(run)) : '',
    };
}
function rows_outcomeOf(run, cost) {
    const { state } = run;
    if (state === 'CANCELLED')
        return cancelledEnding(run, cost);
    if (state === 'ERROR')
        return 'error';
    const meaning = meaningOf(state);
    if (meaning === 'active')
        return 'working';
    return meaning === 'unknown' ? state.toLowerCase() : meaning;
}
function numberOf(url, project) {
    if (!project)
        return undefined;
    const path = new URL(url).pathname.toLowerCase().replace(/\/+$/, '');
    const match = /\/(?:pull|-\/merge_requests)\/(\d{1,9})$/.exec(path);
    if (!match?.[1])
        return undefined;
    const of = path.slice(0, match.index);
    return of.endsWith(`/${project.toLowerCase()}`) ? Number(match[1]) : undefined;
}
function stringsOf(metadata) {
    if (typeof metadata !== 'object' || metadata === null)
        return {};
    const strings = {};
    for (const [key, value] of Object.entries(metadata)) {
        if (typeof value === 'string')
            strings[key] = value;
    }
    return strings;
}

;// CONCATENATED MODULE: ./src/report/collect.ts





const PAGE = 500;
const collect_MAX_PAGES = 200;
async function collectRows(client, what, deps) {
    const { period, home } = what;
    const tags = {};
    if (home?.project)
        tags[STEP_KEYS.repository] = home.project;
    if (what.campaign)
        tags[CAMPAIGN_KEY] = what.campaign;
    const query = {
        created_after: new Date(period.from).toISOString(),
        created_before: new Date(period.to).toISOString(),
        limit: PAGE,
    };
    const listed = await listTaggedRuns(client, tags, query, {
        maxPages: collect_MAX_PAGES,
        deadline: deps.deadline,
    });
    if (listed.filteredHere) {
        deps.log.info('The service cannot filter runs by metadata on this plan (feature_not_available): listed every run of the period and kept the project\u2019s here.');
    }
    const runs = [...listed.runs, ...listed.children].filter((run) => madeByTheAction(run) &&
        carriesTags(run, tags) &&
        (home === undefined || ofHomeForge(run, home)));
    return { rows: runs.map(rows_rowOf), complete: listed.complete };
}

;// CONCATENATED MODULE: ./src/report/followups.ts



const MAX_READS = 100;
const followups_PARALLEL = 8;
async function countFollowups(client, rows, deadline) {
    const steered = rows
        .filter((row) => row.steered)
        .sort((a, b) => b.credits - a.credits)
        .slice(0, MAX_READS);
    const counts = new Map();
    await eachAtMost(followups_PARALLEL, steered, async (row) => {
        counts.set(row.runId, await followupsOf(client, row.runId, deadline));
    });
    return counts;
}
async function followupsOf(client, runId, deadline) {
    try {
        const conversation = parseConversation(await client.getConversation(runId, { deadline, maxRetries: 1 }));
        return messagesInOrder(conversation).filter((message) => message.role === 'user' && message.texts.some((text) => text.includes(STEERED_LINE))).length;
    }
    catch {
        return 0;
    }
}

;// CONCATENATED MODULE: ./src/report/files.ts




const COLUMNS = [
    'run_id',
    'created',
    'ended',
    'project',
    'thread',
    'workflow',
    'key',
    'outcome',
    'credits',
    'link',
    'root_run_id',
    'parent_run_id',
    'title',
    'forge',
    'pull_request',
    'cost_usd',
];
function rowsCsv(rows) {
    const lines = [COLUMNS.join(',')];
    for (const row of rows) {
        const values = [
            row.runId,
            row.created,
            row.ended,
            row.project,
            row.thread === undefined ? '' : String(row.thread),
            row.workflow,
            row.key,
            row.outcome,
            String(row.credits),
            row.link,
            row.rootRunId,
            row.parentRunId,
            row.title,
            row.forge ?? '',
            row.pullRequest?.url ?? '',
            row.costUsd === undefined ? '' : String(row.costUsd),
        ];
        lines.push(values.map(csvField).join(','));
    }
    return `${lines.join('\r\n')}\r\n`;
}
const REPOSITORY_COLUMNS = [
    'repository',
    'forge',
    'runs',
    'outcome',
    'run_id',
    'link',
    'credits',
    'cost_usd',
    'pull_request',
    'pr_state',
    'checks',
    'review',
    'pr_created',
    'pr_merged',
    'pr_closed',
];
function repositoriesCsv(lines) {
    const out = [REPOSITORY_COLUMNS.join(',')];
    for (const line of lines) {
        const status = line.status && !('unknown' in line.status) ? line.status : undefined;
        const unread = line.status && 'unknown' in line.status ? 'unknown' : '';
        const values = [
            line.repository,
            line.forge ?? '',
            String(line.runs),
            line.outcome,
            line.runId,
            line.link,
            String(line.credits),
            String(line.costUsd),
            line.pullRequest,
            status?.state ?? unread,
            status?.checks ?? '',
            status?.review ?? '',
            status?.createdAt ?? '',
            status?.mergedAt ?? '',
            status?.closedAt ?? '',
        ];
        out.push(values.map(csvField).join(','));
    }
    return `${out.join('\r\n')}\r\n`;
}
function csvField(value) {
    const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
function dataOf(rows, tracking) {
    if (!tracking)
        return { csv: rowsCsv(rows), json: rows };
    const byRepository = new Map();
    const idOf = (forge, project) => `${forge ?? ''}\n${project}`;
    for (const row of rows) {
        const id = idOf(row.forge, row.project);
        const list = byRepository.get(id);
        if (list)
            list.push(row);
        else
            byRepository.set(id, [row]);
    }
    const json = tracking.lines.map((line) => ({
        ...line,
        runRows: byRepository.get(idOf(line.forge, line.project)) ?? [],
    }));
    return { csv: repositoriesCsv(tracking.lines), json };
}
async function writeLedgerFiles(dir, workspace, files) {
    const folder = await makeDownloadDir(dir, [workspace]);
    const data = dataOf(files.rows, files.tracking);
    const written = [
        ['runs.csv', data.csv],
        ['runs.json', `${JSON.stringify(data.json, null, 2)}\n`],
        ['report.md', files.summary],
    ];
    for (const [name, text] of written) {
        const partial = (0,external_node_path_namespaceObject.join)(folder, `.${name}.${(0,external_node_crypto_namespaceObject.randomUUID)()}.partial`);
        await (0,promises_namespaceObject.writeFile)(partial, text, { flag: 'wx' });
        await (0,promises_namespaceObject.rename)(partial, (0,external_node_path_namespaceObject.join)(folder, name));
    }
    return written.map(([name]) => (0,external_node_path_namespaceObject.join)(folder, name));
}

;// CONCATENATED MODULE: ./src/report/inputs.ts








const DEFAULT_PERIOD = '7d';
const CAMPAIGN_PERIOD = '90d';
function readReportSettings(source, now) {
    const campaign = readCampaign(source);
    const given = source.get('period') || (campaign ? CAMPAIGN_PERIOD : DEFAULT_PERIOD);
    const period = parsePeriod(given, now);
    if (!period) {
        throw new InputError('period', `must be a duration back from now, such as 24h, 7d or 30d (at most a year), a month such as 2026-11 (not in the future), or last-month; got "${given}".`);
    }
    const scope = source.get('scope') || 'project';
    if (scope !== 'project' && scope !== 'all') {
        throw new InputError('scope', `must be project or all; got "${scope}".`);
    }
    const unit = source.get('unit') || 'auto';
    if (unit !== 'auto' && unit !== 'usd' && unit !== 'credits') {
        throw new InputError('unit', `must be auto, usd or credits; got "${unit}".`);
    }
    if (campaign) {
        return {
            ...readConnection(source),
            period,
            scope: 'all',
            project: undefined,
            forge: source.world.forge,
            reportDir: readReportDir(source),
            budgets: readCreditBudgets(source),
            unit,
            campaign,
            githubToken: readGitHubToken(source),
        };
    }
    const { project, forge } = source.world;
    if (scope === 'project' && !project) {
        throw new InputError('scope', 'is project, and no project is named: outside GitHub and GitLab, name it with --project, or report every project the key can list with scope all.');
    }
    return {
        ...readConnection(source),
        period,
        scope,
        project: scope === 'project' ? project : undefined,
        forge,
        reportDir: readReportDir(source),
        budgets: readCreditBudgets(source),
        unit,
    };
}
function readReportDir(source) {
    const dir = source.get('report_dir');
    if (!dir)
        return '';
    if (dir.includes('\0'))
        throw new InputError('report_dir', 'must not hold a NUL character.');
    const { workspace } = source.world;
    const full = (0,external_node_path_namespaceObject.resolve)(workspace, dir);
    const inside = (0,external_node_path_namespaceObject.relative)(workspace, full);
    if (inside.startsWith('..') || (0,external_node_path_namespaceObject.isAbsolute)(inside)) {
        throw new InputError('report_dir', `must be a folder inside the workspace (${workspace}); got "${dir}".`);
    }
    let folder = workspace;
    for (const part of inside.split(external_node_path_namespaceObject.sep).filter(Boolean)) {
        folder = (0,external_node_path_namespaceObject.join)(folder, part);
        const stats = (0,external_node_fs_namespaceObject.lstatSync)(folder, { throwIfNoEntry: false });
        if (!stats)
            break;
        if (part.toLowerCase() === '.git' || !stats.isDirectory()) {
            throw new InputError('report_dir', `must be a plain folder inside the workspace; "${folder}" is ${part.toLowerCase() === '.git' ? 'inside .git' : 'a link or a file'}, which could lead the report out of it.`);
        }
    }
    return full;
}

;// CONCATENATED MODULE: ./src/report/render-campaign.ts




const render_campaign_OPEN_ROWS = 50;
const render_campaign_MAX_ROWS = 500;
const render_campaign_MAX_TEXT = 120;
function campaignSection(campaign, tracking, money) {
    const { pullRequests: pulls } = tracking;
    const opened = pulls.draft + pulls.open + pulls.merged + pulls.closed + pulls.unknown;
    const known = opened - pulls.unknown;
    const lines = [
        `#### \ud83d\uddfa\ufe0f Campaign ${escapeMarkdown(campaign)}: ${formatDecimal(pulls.merged, 0)} of ${formatDecimal(opened, 0)} pull requests merged`,
        '',
        ...factsTable([
            ['Repositories', repositoriesFact(tracking, opened)],
            ['Pull requests', pullsFact(tracking)],
            ['Checks failing', openPulls(tracking.checksFailing)],
            ['Changes requested', openPulls(tracking.changesRequested)],
            ['Latest runs', outcomesFact(tracking.lines)],
        ]),
        '',
    ];
    if (known > 0)
        lines.push(...burndownChart(tracking.burndown), '');
    lines.push(...repositoryTable(tracking.lines, money));
    return lines;
}
function openPulls(count) {
    return `${formatDecimal(count, 0)} open ${count === 1 ? 'pull request' : 'pull requests'}`;
}
function repositoriesFact(tracking, opened) {
    const without = tracking.repositories - opened;
    return `${formatDecimal(tracking.repositories, 0)}: ${formatDecimal(opened, 0)} with a pull request, ${formatDecimal(without, 0)} without`;
}
function pullsFact({ pullRequests: pulls }) {
    const parts = [
        ['merged', pulls.merged],
        ['open', pulls.open],
        ['draft', pulls.draft],
        ['closed', pulls.closed],
        ['state unknown', pulls.unknown],
    ]
        .filter(([, count]) => count > 0)
        .map(([word, count]) => `${formatDecimal(count, 0)} ${word}`);
    return parts.length > 0 ? parts.join(', ') : 'none yet';
}
function outcomesFact(lines) {
    const counts = new Map();
    for (const line of lines)
        counts.set(line.outcome, (counts.get(line.outcome) ?? 0) + 1);
    return [...counts]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([outcome, count]) => `${formatDecimal(count, 0)} ${escapeMarkdown(outcome)}`)
        .join(', ');
}
function burndownChart(days) {
    const top = Math.max(1, ...days.map((day) => Math.max(day.open, day.merged)));
    return [
        '```mermaid',
        'xychart-beta',
        '    title "Pull requests per day (UTC): merged (bars), open (line)"',
        `    x-axis [${days.map((day) => `"${day.day.slice(5)}"`).join(', ')}]`,
        `    y-axis "Pull requests" 0 --> ${Math.ceil(top * 1.1)}`,
        `    bar [${days.map((day) => day.merged).join(', ')}]`,
        `    line [${days.map((day) => day.open).join(', ')}]`,
        '```',
    ];
}
function repositoryTable(lines, money) {
    const shown = lines.slice(0, render_campaign_MAX_ROWS);
    const table = [
        `| Repository | Latest run | Pull request | State | Checks | Review | ${money.column} |`,
        '| --- | --- | --- | --- | --- | --- | ---: |',
        ...shown.map((line) => render_campaign_rowOf(line, money.cell(line))),
    ];
    if (lines.length > shown.length) {
        table.push(`| _and ${formatDecimal(lines.length - shown.length, 0)} more: runs.csv lists them_ | | | | | | |`);
    }
    if (lines.length <= render_campaign_OPEN_ROWS)
        return [...table, ''];
    return [
        '<details>',
        `<summary>The ${formatDecimal(lines.length, 0)} repositories, one line each (runs.csv in report_dir has them as data)</summary>`,
        '',
        ...table,
        '',
        '</details>',
        '',
    ];
}
function render_campaign_rowOf(line, cost) {
    const status = line.status;
    const known = status && !('unknown' in status) ? status : undefined;
    const state = known
        ? known.state
        : status && 'unknown' in status
            ? `state unknown (${escapeMarkdown(status.unknown)})`
            : '\u2013';
    const cells = [
        escapeMarkdown(render_campaign_cut(line.repository)),
        linked(escapeMarkdown(line.outcome), line.link),
        line.pullRequest ? linked(pullName(line.pullRequest), line.pullRequest) : 'none',
        state,
        known?.checks ?? '\u2013',
        known?.review === 'changes_requested' ? 'changes requested' : (known?.review ?? '\u2013'),
        cost,
    ];
    return `| ${cells.join(' | ')} |`;
}
function pullName(url) {
    const address = pullAddressOf(url);
    if (address)
        return `#${address.number}`;
    const merge = /\/-\/merge_requests\/(\d{1,9})\/?$/.exec(url);
    return merge?.[1] ? `!${merge[1]}` : 'link';
}
function linked(text, url) {
    const safe = url.length <= render_campaign_MAX_TEXT * 4 ? safeHttpUrl(url) : undefined;
    return safe ? `[${text}](${safe})` : text;
}
function render_campaign_cut(text) {
    return text.length <= render_campaign_MAX_TEXT ? text : `${text.slice(0, render_campaign_MAX_TEXT - 1)}\u2026`;
}

;// CONCATENATED MODULE: ./src/report/sums.ts


const TOP = 10;
function sumUp(rows, options) {
    const { period } = options;
    const withoutUsd = rows.filter(spentWithoutUsd).length;
    const unit = unitOf(options.unit ?? 'auto', rows, withoutUsd);
    const byCost = (a, b) => sums_costIn(b, unit) - sums_costIn(a, unit);
    const days = new Map(daysOf(period).map((day) => [day, empty()]));
    for (const row of rows)
        add(days, row.created.slice(0, 10), row);
    const notSucceeded = rows.filter((row) => row.outcome !== 'succeeded' && row.outcome !== 'working');
    return {
        period: {
            from: new Date(period.from).toISOString(),
            to: new Date(period.to).toISOString(),
            label: period.label,
        },
        scope: options.scope,
        ...(options.project ? { project: options.project } : {}),
        ...(options.campaign ? { campaign: options.campaign } : {}),
        complete: options.complete,
        unit,
        totals: {
            ...spendOf(rows),
            notSucceeded: spendOf(notSucceeded),
            running: spendOf(rows.filter((row) => row.outcome === 'working')),
            children: rows.length - rows.filter(isTree).length,
            withoutUsd,
        },
        byDay: [...days].map(([day, spend]) => ({ day, ...rounded(spend) })),
        byProject: groups(rows, projectNames(rows), byCost),
        byThread: threads(rows, byCost),
        byWorkflow: groups(rows, (row) => row.workflow, byCost),
        byKey: keys(rows, byCost),
        byOutcome: groups(rows, (row) => row.outcome, byCost),
        budgets: budgetUse(rows, options.budgets),
        ...steeringOf(rows, options.followups ?? new Map()),
    };
}
function spentWithoutUsd(row) {
    return row.costUsd === undefined && row.credits > 0;
}
function unitOf(choice, rows, withoutUsd) {
    if (choice !== 'auto')
        return choice;
    const anyUsd = rows.some((row) => row.costUsd !== undefined);
    return anyUsd && withoutUsd === 0 ? 'usd' : 'credits';
}
function sums_costIn(spend, unit) {
    return unit === 'usd' ? spend.costUsd : spend.credits;
}
function rowCostIn(row, unit) {
    return unit === 'usd' ? (row.costUsd ?? 0) : row.credits;
}
function steeringOf(rows, followups) {
    const steered = rows.filter((row) => row.steered && isTree(row));
    if (steered.length === 0)
        return {};
    const count = [...followups.values()].reduce((sum, one) => sum + one, 0);
    const credits = restartPrice(rows, 'credits');
    const usd = restartPrice(rows, 'usd');
    return {
        steering: {
            runs: steered.length,
            followups: count,
            restartCredits: roundTo(credits, 4),
            savedCredits: roundTo(count * credits, 4),
            restartCostUsd: roundTo(usd, 4),
            savedCostUsd: roundTo(count * usd, 4),
            complete: followups.size === steered.length,
        },
    };
}
function restartPrice(rows, unit) {
    const treeCost = new Map();
    for (const row of rows) {
        treeCost.set(row.rootRunId, (treeCost.get(row.rootRunId) ?? 0) + rowCostIn(row, unit));
    }
    const others = rows
        .filter((row) => isTree(row) && !row.steered && row.outcome !== 'working')
        .map((row) => treeCost.get(row.rootRunId) ?? rowCostIn(row, unit))
        .sort((a, b) => a - b);
    const middle = others.length / 2;
    if (others.length === 0)
        return 0;
    return others.length % 2 === 1
        ? (others[Math.floor(middle)] ?? 0)
        : ((others[middle - 1] ?? 0) + (others[middle] ?? 0)) / 2;
}
const empty = () => ({ runs: 0, credits: 0, usd: 0 });
function isTree(row) {
    return row.parentRunId === '';
}
function count(tally, row) {
    if (isTree(row))
        tally.runs += 1;
    tally.credits += row.credits;
    tally.usd += row.costUsd ?? 0;
}
function add(tallies, key, row) {
    const tally = tallies.get(key) ?? empty();
    count(tally, row);
    tallies.set(key, tally);
}
const rounded = (tally) => ({
    runs: tally.runs,
    credits: roundTo(tally.credits, 4),
    costUsd: roundTo(tally.usd, 4),
});
function spendOf(rows) {
    const tally = empty();
    for (const row of rows)
        count(tally, row);
    return rounded(tally);
}
function costliestFirst(items, byCost, name) {
    return items.sort((a, b) => byCost(a, b) || name(a).localeCompare(name(b)));
}
function projectNames(rows) {
    const forges = new Map();
    for (const row of rows) {
        if (row.forge)
            forges.set(row.project, (forges.get(row.project) ?? new Set()).add(row.forge));
    }
    return (row) => row.forge && (forges.get(row.project)?.size ?? 0) > 1
        ? `${row.forge}:${row.project}`
        : row.project;
}
function groups(rows, by, byCost) {
    const tallies = new Map();
    for (const row of rows)
        add(tallies, by(row) || '(none)', row);
    const list = [...tallies].map(([name, tally]) => ({ name, ...rounded(tally) }));
    return costliestFirst(list, byCost, (group) => group.name);
}
function sums_threadOf(row) {
    return row.pullRequest?.number ?? row.thread;
}
function threads(rows, byCost) {
    const tallies = new Map();
    for (const row of rows) {
        const thread = sums_threadOf(row);
        if (thread === undefined)
            continue;
        const id = `${row.forge ?? ''} ${row.project} ${thread}`;
        const entry = tallies.get(id) ?? { row, thread, tally: empty() };
        count(entry.tally, row);
        tallies.set(id, entry);
    }
    const list = [...tallies.values()].map(({ row, thread, tally }) => ({
        forge: row.forge,
        project: row.project,
        thread,
        ...rounded(tally),
    }));
    return costliestFirst(list, byCost, (one) => `${one.project}#${String(one.thread).padStart(12, '0')}`);
}
function keys(rows, byCost) {
    const tallies = new Map();
    for (const row of rows) {
        const id = `${row.project}\n${row.key}`;
        const entry = tallies.get(id) ?? { row, tally: empty() };
        count(entry.tally, row);
        tallies.set(id, entry);
    }
    const list = [...tallies.values()].map(({ row, tally }) => ({
        project: row.project,
        key: row.key || '(none)',
        ...rounded(tally),
    }));
    return costliestFirst(list, byCost, (one) => `${one.project}\n${one.key}`);
}
function budgetUse(rows, budgets) {
    const use = {};
    if (budgets.daily !== undefined) {
        const limit = budgets.daily;
        const perDay = new Map();
        for (const row of rows)
            add(perDay, `${row.created.slice(0, 10)}\n${row.project}`, row);
        const days = [...perDay].map(([id, tally]) => {
            const [day = '', project = ''] = id.split('\n');
            return { day, project, spent: sums_costIn(rounded(tally), limit.unit) };
        });
        days.sort((a, b) => b.spent - a.spent || a.day.localeCompare(b.day));
        use.daily = {
            limit,
            busiest: days[0],
            reached: days.filter((day) => day.spent >= limit.value).length,
        };
    }
    if (budgets.pullRequest !== undefined) {
        const limit = budgets.pullRequest;
        const all = threads(rows, (a, b) => sums_costIn(b, limit.unit) - sums_costIn(a, limit.unit));
        use.pullRequest = {
            limit,
            costliest: all[0],
            reached: all.filter((one) => sums_costIn(one, limit.unit) >= limit.value).length,
        };
    }
    return use;
}

;// CONCATENATED MODULE: ./src/report/render.ts







function renderLedger(ledger, links = {}) {
    const { totals, unit } = ledger;
    const where = ledger.campaign
        ? `campaign ${escapeMarkdown(ledger.campaign)}, every repository`
        : ledger.scope === 'project'
            ? escapeMarkdown(ledger.project ?? '')
            : 'every project';
    const lines = [
        `### \ud83d\udcb3 Agent runs: ${moneyOf(totals, unit)} in ${escapeMarkdown(ledger.period.label)}`,
        '',
        ...factsTable([
            ['Scope', where],
            ['Period', `${stamp(ledger.period.from)} to ${stamp(ledger.period.to)} UTC`],
            ['Runs', runsText(totals.runs, totals.children)],
            ['Spend', spendFact(ledger)],
            ['Runs that did not succeed', spendText(totals.notSucceeded, unit)],
            ['Runs still going', `${spendText(totals.running, unit)} so far`],
            ...steeringFact(ledger),
        ]),
        '',
    ];
    if (!ledger.complete) {
        lines.push('> [!WARNING]', '> The service listed more runs than the report reads (100,000): every figure is a lower bound.', '');
    }
    if (totals.runs === 0) {
        lines.push('No run of the action was created in this period.', '');
        return lines.join('\n');
    }
    if (ledger.campaign && ledger.tracking) {
        const money = {
            unit,
            column: columnOf(unit),
            cell: (one) => cellOf({ runs: 0, ...one }, unit),
        };
        lines.push(...campaignSection(ledger.campaign, ledger.tracking, money));
        lines.push(...chart(ledger.byDay, unit), '');
        lines.push(...groupTable('By outcome', 'Outcome', ledger.byOutcome, unit));
        lines.push(...budgetLines(ledger));
        return lines.join('\n');
    }
    lines.push(...chart(ledger.byDay, unit), '');
    lines.push(...threadTable(ledger.byThread, links, unit));
    lines.push(...keyTable(ledger.byKey, ledger.scope, unit));
    lines.push(...groupTable('By outcome', 'Outcome', ledger.byOutcome, unit));
    lines.push(...groupTable('By workflow or pipeline', 'Workflow', ledger.byWorkflow, unit));
    if (ledger.scope === 'all') {
        const title = ledger.campaign ? 'By repository' : 'By project';
        lines.push(...groupTable(title, ledger.campaign ? 'Repository' : 'Project', ledger.byProject, unit));
    }
    lines.push(...budgetLines(ledger));
    return lines.join('\n');
}
function moneyOf(spend, unit) {
    return formatAmount({ value: sums_costIn(spend, unit), unit });
}
function cellOf(spend, unit) {
    return formatDecimal(sums_costIn(spend, unit), 2, unit === 'usd' ? 2 : 0);
}
function columnOf(unit) {
    return unit === 'usd' ? 'Cost (USD)' : 'Credits';
}
function spendFact(ledger) {
    const { totals, unit } = ledger;
    const both = unit === 'usd'
        ? `${formatUsd(totals.costUsd)} (${formatCredits(totals.credits)})`
        : totals.costUsd > 0
            ? `${formatCredits(totals.credits)} (${formatUsd(totals.costUsd)} for the runs that report dollars)`
            : formatCredits(totals.credits);
    if (totals.withoutUsd === 0 || unit === 'usd')
        return both;
    const runs = `${formatDecimal(totals.withoutUsd, 0)} ${totals.withoutUsd === 1 ? 'run reports' : 'runs report'}`;
    return `${both}; ${runs} no dollar figure, so the report is in credits`;
}
function steeringFact(ledger) {
    const steering = ledger.steering;
    if (!steering)
        return [];
    const { runs, followups } = steering;
    const took = `${formatDecimal(runs, 0)} steered ${runs === 1 ? 'run' : 'runs'} took ${formatDecimal(followups, 0)} ${followups === 1 ? 'follow-up' : 'follow-ups'} in place of as many new runs`;
    const saved = followups === 0
        ? ''
        : `: about ${moneyOf({ credits: steering.savedCredits, costUsd: steering.savedCostUsd }, ledger.unit)} saved (a run that was not steered used ${moneyOf({ credits: steering.restartCredits, costUsd: steering.restartCostUsd }, ledger.unit)}, the median)`;
    const partial = steering.complete ? '' : ` (the ${MAX_READS} costliest steered runs read)`;
    return [['Steering', `${took}${saved}${partial}`]];
}
function stamp(iso) {
    return iso.slice(0, 16).replace('T', ' ');
}
function spendText(spend, unit) {
    return `${formatDecimal(spend.runs, 0)} ${spend.runs === 1 ? 'run' : 'runs'}, ${moneyOf(spend, unit)}`;
}
function chart(days, unit) {
    const values = days.map((day) => sums_costIn(day, unit));
    const top = Math.max(unit === 'usd' ? 0.01 : 1, ...values);
    const name = unit === 'usd' ? 'US dollars' : 'Credits';
    const axisTop = unit === 'usd' ? Math.ceil(top * 110) / 100 : Math.ceil(top * 1.1);
    return [
        '```mermaid',
        'xychart-beta',
        `    title "${name} per day (UTC)"`,
        `    x-axis [${days.map((day) => `"${day.day.slice(5)}"`).join(', ')}]`,
        `    y-axis "${name}" 0 --> ${axisTop}`,
        `    bar [${values.map((value) => formatDecimal(value, 2).replace(/,/g, '')).join(', ')}]`,
        '```',
    ];
}
function threadTable(threads, links, unit) {
    if (threads.length === 0)
        return [];
    const lines = [
        `#### The ${Math.min(TOP, threads.length)} costliest pull and merge requests`,
        '',
        `| Thread | Project | Runs | ${columnOf(unit)} |`,
        '| --- | --- | ---: | ---: |',
    ];
    for (const one of threads.slice(0, TOP)) {
        const name = one.forge === 'gitlab' ? `!${one.thread}` : `#${one.thread}`;
        const url = threadUrl(one, links);
        const cell = url ? `[${name}](${url})` : name;
        lines.push(`| ${cell} | ${escapeMarkdown(one.project)} | ${formatDecimal(one.runs, 0)} | ${cellOf(one, unit)} |`);
    }
    return [...lines, ''];
}
function threadUrl(one, links) {
    if (!/^[\w.-]+(?:\/[\w.-]+)+$/.test(one.project))
        return undefined;
    if (one.forge === 'gitlab') {
        const base = links.gitlab?.replace(/\/+$/, '');
        return base ? safeHttpUrl(`${base}/${one.project}/-/merge_requests/${one.thread}`) : undefined;
    }
    if (one.forge !== 'github')
        return undefined;
    const base = (links.github || 'https://github.com').replace(/\/+$/, '');
    return safeHttpUrl(`${base}/${one.project}/issues/${one.thread}`);
}
function keyTable(keys, scope, unit) {
    const column = columnOf(unit);
    const lines = [
        `#### The ${Math.min(TOP, keys.length)} costliest keys`,
        '',
        scope === 'all' ? `| Key | Project | Runs | ${column} |` : `| Key | Runs | ${column} |`,
        scope === 'all' ? '| --- | --- | ---: | ---: |' : '| --- | ---: | ---: |',
    ];
    for (const one of keys.slice(0, TOP)) {
        const project = scope === 'all' ? ` ${escapeMarkdown(one.project)} |` : '';
        lines.push(`| ${escapeMarkdown(one.key)} |${project} ${formatDecimal(one.runs, 0)} | ${cellOf(one, unit)} |`);
    }
    return [...lines, ''];
}
function groupTable(title, column, groups, unit) {
    const lines = [
        `#### ${title}`,
        '',
        `| ${column} | Runs | ${columnOf(unit)} |`,
        '| --- | ---: | ---: |',
    ];
    for (const group of groups.slice(0, TOP)) {
        lines.push(`| ${escapeMarkdown(group.name)} | ${formatDecimal(group.runs, 0)} | ${cellOf(group, unit)} |`);
    }
    if (groups.length > TOP)
        lines.push(`| _and ${groups.length - TOP} more_ | | |`);
    return [...lines, ''];
}
function budgetLines(ledger) {
    const { daily, pullRequest } = ledger.budgets;
    if (!daily && !pullRequest)
        return [];
    const lines = ['#### Budgets', '', '| Budget | Limit | In this period |', '| --- | ---: | --- |'];
    if (daily) {
        const busiest = daily.busiest;
        const use = busiest
            ? `the costliest day, ${busiest.day}, used ${inUnitOf(busiest.spent, daily.limit)} (${percent(busiest.spent, daily.limit)})${ledger.scope === 'all' ? ` in ${escapeMarkdown(busiest.project)}` : ''}; ${reachedText(daily.reached, 'day')}`
            : 'no run';
        lines.push(`| \`daily_credit_budget\` | ${formatAmount(daily.limit)} | ${use} |`);
    }
    if (pullRequest) {
        const top = pullRequest.costliest;
        const use = top
            ? `the costliest thread, ${escapeMarkdown(top.project)} ${top.forge === 'gitlab' ? '!' : '#'}${top.thread}, used ${inUnitOf(sums_costIn(top, pullRequest.limit.unit), pullRequest.limit)} (${percent(sums_costIn(top, pullRequest.limit.unit), pullRequest.limit)}); ${reachedText(pullRequest.reached, 'thread')}`
            : 'no run on a pull or merge request';
        lines.push(`| \`pr_credit_budget\` | ${formatAmount(pullRequest.limit)} | ${use} |`);
    }
    lines.push('', '_A step counts the daily budget over the last 24 hours and the pull request budget over every run of the thread; the table counts UTC days and this period._', '');
    return lines;
}
function inUnitOf(value, limit) {
    return formatAmount({ value, unit: limit.unit });
}
function percent(spent, limit) {
    return `${formatDecimal((spent / limit.value) * 100, 0)}% of it`;
}
function reachedText(count, noun) {
    if (count === 0)
        return `no ${noun} reached it`;
    return `${formatDecimal(count, 0)} ${count === 1 ? noun : `${noun}s`} reached it`;
}
function runsText(runs, children) {
    const started = children > 0
        ? `, with ${formatDecimal(children, 0)} ${children === 1 ? 'run' : 'runs'} their agents started`
        : '';
    return `${formatDecimal(runs, 0)}${started}`;
}

;// CONCATENATED MODULE: ./src/report/main.ts













const LIST_DEADLINE_MS = 5 * 60_000;
async function main_run(io, inputs) {
    const ended = await runStepBody(io, async () => {
        const now = Date.now();
        const settings = readReportSettings(inputs, now);
        const { world } = inputs;
        const home = settings.scope === 'project' ? homeOf(world) : undefined;
        const client = serviceClient(settings, io);
        const deps = { deadline: now + LIST_DEADLINE_MS, log: io };
        const what = { period: settings.period, home, campaign: settings.campaign };
        const { rows, complete } = await collectRows(client, what, deps);
        const followups = await countFollowups(client, rows, deps.deadline);
        const sums = sumUp(rows, { ...settings, complete, followups });
        const ledger = settings.campaign
            ? {
                ...sums,
                tracking: await readCampaignTracking(rows, { ...settings, githubToken: settings.githubToken ?? '', apiUrl: world.apiUrl }, deps),
            }
            : sums;
        const { runs, credits, costUsd, withoutUsd } = ledger.totals;
        const forge = world.forge ?? world.projectForge;
        const links = forge ? { [forge]: world.serverUrl } : {};
        const summary = renderLedger(ledger, links);
        io.setOutput('credits', formatNumberOutput(credits));
        io.setOutput('cost_usd', withoutUsd === 0 ? formatNumberOutput(costUsd) : '');
        io.setOutput('runs', String(runs));
        io.setOutput('report', JSON.stringify(ledger));
        const counted = `${formatDecimal(runs, 0)} ${runs === 1 ? 'run' : 'runs'}`;
        const spent = formatAmount({
            value: ledger.unit === 'usd' ? costUsd : credits,
            unit: ledger.unit,
        });
        io.info(`${counted} in ${ledger.period.label} used ${spent}.`);
        await io.appendSummary(summary).catch((error) => {
            io.debug(`No summary written: ${errorMessage(error)}`);
        });
        if (settings.reportDir) {
            const written = await writeLedgerFiles(settings.reportDir, world.workspace, {
                rows,
                summary,
                tracking: ledger.tracking,
            });
            io.info(`Wrote ${written.join(', ')}.`);
        }
    });
    return 'error' in ended ? { error: ended.error } : {};
}

;// CONCATENATED MODULE: ./src/github/repository-desk.ts








class RepositoryDesk {
    #octokit;
    #owner;
    #repo;
    #serverUrl;
    #me;
    #comments;
    #commentsSince;
    #statuses = new Map();
    #workflowRuns = new Map();
    #runsOfWorkflow = new Map();
    constructor(octokit, repository, serverUrl) {
        this.#octokit = octokit;
        const [owner = '', repo = ''] = repository.split('/');
        this.#owner = owner;
        this.#repo = repo;
        this.#serverUrl = serverUrl;
    }
    static async open(github, repository) {
        return new RepositoryDesk(await github.client(), repository, github.serverUrl);
    }
    commentsSince(since) {
        this.#commentsSince = since;
    }
    async stepComment(handoff, runId) {
        if (handoff.thread === undefined)
            return undefined;
        for (const comment of await this.#repositoryComments()) {
            if (comment.thread !== handoff.thread)
                continue;
            const marker = parseMarker(comment.body);
            if (!marker || marker.key !== handoff.key || marker.reply)
                continue;
            const shown = marker.runs.find((record) => record.runId === runId);
            if (shown)
                return { commentId: comment.id, shown };
        }
        return undefined;
    }
    async runComments(handoff, runId) {
        if (handoff.thread === undefined)
            return [];
        return (await this.#repositoryComments()).flatMap((comment) => {
            if (comment.thread !== handoff.thread)
                return [];
            const marker = parseMarker(comment.body);
            const shown = marker?.runs.find((record) => record.runId === runId);
            return marker && shown ? [{ commentId: comment.id, shown, key: marker.key ?? '' }] : [];
        });
    }
    async stepStatus(handoff) {
        if (!handoff.headSha)
            return undefined;
        const context = statusContext(handoff.key);
        const sha = handoff.headSha;
        let listed = this.#statuses.get(sha);
        if (!listed) {
            listed = this.#octokit.rest.repos
                .listCommitStatusesForRef({
                owner: this.#owner,
                repo: this.#repo,
                ref: sha,
                per_page: 100,
                ...withDeadline(),
            })
                .then(({ data }) => data.map((status) => ({
                context: status.context,
                state: status.state,
                description: status.description ?? '',
            })));
            this.#statuses.set(sha, listed);
        }
        return (await listed).find((status) => status.context === context);
    }
    async workflowRun(step) {
        const id = step.workflowRunId;
        if (!id)
            return undefined;
        let read = this.#workflowRuns.get(id);
        if (!read) {
            read = this.#octokit.rest.actions
                .getWorkflowRun({
                owner: this.#owner,
                repo: this.#repo,
                run_id: Number(id),
                ...withDeadline(),
            })
                .then(({ data }) => ({
                status: data.status ?? 'unknown',
                attempt: data.run_attempt ?? 1,
                conclusion: data.conclusion ?? undefined,
                workflowId: data.workflow_id,
            }));
            this.#workflowRuns.set(id, read);
        }
        const { status, attempt, conclusion } = await read;
        const ours = attempt === (step.attempt ?? 1);
        const over = status === 'completed' || attempt > (step.attempt ?? 1);
        return { over, status, conclusion: ours && status === 'completed' ? conclusion : undefined };
    }
    async newerWorkflowRun(step, thread) {
        await this.workflowRun({ workflowRunId: step.workflowRunId, attempt: undefined });
        const own = await this.#workflowRuns.get(step.workflowRunId);
        if (!own)
            return undefined;
        let listed = this.#runsOfWorkflow.get(own.workflowId);
        if (!listed) {
            listed = this.#octokit.rest.actions
                .listWorkflowRuns({
                owner: this.#owner,
                repo: this.#repo,
                workflow_id: own.workflowId,
                per_page: 50,
                ...withDeadline(),
            })
                .then(({ data }) => data.workflow_runs.map((run) => ({
                id: String(run.id),
                status: run.status ?? 'unknown',
                conclusion: run.conclusion ?? undefined,
                pullRequests: (run.pull_requests ?? []).map((pull) => pull.number),
            })));
            this.#runsOfWorkflow.set(own.workflowId, listed);
        }
        return (await listed).find((run) => BigInt(run.id) > BigInt(step.workflowRunId) && run.pullRequests.includes(thread));
    }
    stepWorkflowRunUrl(handoff) {
        return workflowRunUrl({
            serverUrl: this.#serverUrl,
            repository: handoff.repository,
            runId: handoff.workflowRunId,
            runAttempt: handoff.attempt === undefined ? undefined : String(handoff.attempt),
        });
    }
    stepSpot(handoff, commentId) {
        return { commentId, key: handoff.key, workflowRun: this.stepWorkflowRunUrl(handoff) };
    }
    async showInComment(handoff, spot, run, context, log) {
        const watched = watchWarnings(log);
        const comment = ThreadComment.open(this.#octokit, { owner: this.#owner, repo: this.#repo, issueNumber: handoff.thread ?? 0 }, {
            step: 'reconcile',
            key: spot.key,
            mode: 'keyed',
            commentId: spot.commentId,
            workflowRun: spot.workflowRun,
            log: watched.log,
        });
        comment.show(run, context);
        await comment.settled();
        return !watched.warned();
    }
    async markSetStopped(handoff, note, log) {
        if (handoff.set === undefined || handoff.thread === undefined || !handoff.key)
            return undefined;
        const shown = (await this.#repositoryComments()).find((comment) => {
            if (comment.thread !== handoff.thread)
                return false;
            const marker = parseSetMarker(comment.body);
            const current = marker?.sets[0];
            return (marker?.key === handoff.key &&
                current !== undefined &&
                current.set === handoff.set &&
                !current.outcome);
        });
        if (!shown)
            return undefined;
        const watched = watchWarnings(log);
        const comment = new SetComment(this.#octokit, { owner: this.#owner, repo: this.#repo, issueNumber: handoff.thread }, {
            step: 'reconcile',
            key: handoff.key,
            set: handoff.set,
            commentId: shown.id,
            log: watched.log,
        });
        await comment.markStopped(note);
        return !watched.warned();
    }
    async setComment(handoff) {
        if (handoff.set === undefined || handoff.thread === undefined || !handoff.key)
            return undefined;
        for (const comment of await this.#repositoryComments()) {
            if (comment.thread !== handoff.thread)
                continue;
            const marker = parseSetMarker(comment.body);
            if (marker?.key !== handoff.key)
                continue;
            const shown = marker.sets.find((record) => record.set === handoff.set);
            if (shown)
                return { commentId: comment.id, shown };
        }
        return undefined;
    }
    async showSetEnd(handoff, commentId, shown, log) {
        if (handoff.set === undefined || handoff.thread === undefined)
            return false;
        const watched = watchWarnings(log);
        const comment = new SetComment(this.#octokit, { owner: this.#owner, repo: this.#repo, issueNumber: handoff.thread }, { step: 'reconcile', key: handoff.key, set: handoff.set, commentId, log: watched.log });
        await comment.showHandedOverEnd(shown);
        return !watched.warned();
    }
    async setStatus(handoff, report, log) {
        if (!handoff.headSha)
            return false;
        const watched = watchWarnings(log);
        const status = new CommitStatusReporter(this.#octokit, {
            owner: this.#owner,
            repo: this.#repo,
            sha: handoff.headSha,
            context: statusContext(handoff.key),
        }, watched.log);
        status.show(report);
        await status.settled();
        return !watched.warned();
    }
    #identity() {
        this.#me ??= tokenIdentity(this.#octokit).catch((error) => {
            this.#me = undefined;
            throw error;
        });
        return this.#me;
    }
    #repositoryComments() {
        this.#comments ??= this.#readComments().catch((error) => {
            this.#comments = undefined;
            throw error;
        });
        return this.#comments;
    }
    async #readComments() {
        const me = await this.#identity();
        const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listCommentsForRepo, {
            owner: this.#owner,
            repo: this.#repo,
            ...(this.#commentsSince ? { since: this.#commentsSince } : {}),
            per_page: 100,
            ...withDeadline(timing/* RECONCILE_PASS */.Rm.commentsMs),
        });
        return comments
            .filter((comment) => comment.user?.login === me)
            .map((comment) => ({
            id: comment.id,
            thread: Number(/\/issues\/(\d+)$/.exec(comment.issue_url)?.[1]),
            body: comment.body ?? '',
        }));
    }
}
function watchWarnings(log) {
    let warned = false;
    return {
        log: {
            ...log,
            warning: (message) => {
                warned = true;
                log.warning(message);
            },
        },
        warned: () => warned,
    };
}

;// CONCATENATED MODULE: ./src/inputs/reconcile.ts




const DEFAULT_LOOKBACK = '24h';
function readPassOptions(source) {
    const lookbackMs = parsePositiveDuration('lookback', source.get('lookback') || DEFAULT_LOOKBACK);
    const sweep = parseBoolean('sweep', source.get('sweep') || 'true');
    const dryRun = parseBoolean('dry_run', source.get('dry_run') || 'false');
    return { lookbackMs, sweep, dryRun };
}
function readReconcileSettings(source) {
    const connection = readConnection(source);
    const githubToken = readGitHubToken(source);
    const pass = readPassOptions(source);
    if (!githubToken) {
        throw new InputError('github_token', 'is required by reconcile: it reads workflow runs and writes comments and commit statuses. Give it ${{ github.token }} (the default), with the permissions docs/reconcile.md lists.');
    }
    const repository = source.world.repository ?? '';
    if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) {
        throw new Error(`reconcile runs in a workflow: GITHUB_REPOSITORY must name the repository (owner/repo); got "${repository}".`);
    }
    return { ...connection, githubToken, repository, ...pass };
}
function readGitLabReconcileSettings(source) {
    const connection = readConnection(source);
    const pass = readPassOptions(source);
    const project = source.world.project ?? '';
    if (source.world.forge !== 'gitlab' || !project) {
        throw new InputError('project', 'is needed: reconcile runs in a GitLab CI job (a scheduled pipeline), where GitLab CI names the project (GITLAB_CI, CI_PROJECT_PATH).');
    }
    return { ...connection, project, ...pass };
}

;// CONCATENATED MODULE: ./src/summary/reconcile.ts



const ORDER = {
    finalized: 0,
    swept: 1,
    failed: 2,
    left: 3,
    'up-to-date': 4,
};
const reconcile_WORDS = {
    finalized: { done: '\ud83c\udfc1 Finalized', dry: '\ud83c\udfc1 Would finalize' },
    swept: { done: '\ud83e\uddf9 Swept (cancelled)', dry: '\ud83e\uddf9 Would sweep (cancel)' },
    failed: { done: '\u26a0\ufe0f Failed', dry: '\u26a0\ufe0f Failed' },
    left: { done: 'Left', dry: 'Left' },
    'up-to-date': { done: 'Up to date', dry: 'Up to date' },
};
const reconcile_MAX_ROWS = 200;
function renderPassSummary(report) {
    const count = (action) => report.rows.filter((row) => row.action === action).length;
    const dry = report.dryRun;
    const headline = [
        `${count('finalized')} ${dry ? 'to finalize' : 'finalized'}`,
        `${count('swept')} ${dry ? 'to sweep' : 'swept'}`,
        `${count('left')} left`,
        `${count('up-to-date')} up to date`,
        ...(count('failed') > 0 ? [`${count('failed')} failed`] : []),
    ].join(', ');
    const lines = [
        `### \ud83d\udd01 Reconcile pass${dry ? ' (dry run: nothing was changed)' : ''}`,
        '',
        `${report.rows.length} run(s) updated within ${formatDuration(report.lookbackMs)}: ${headline}.`,
        '',
    ];
    if (report.filteredHere) {
        lines.push('> [!NOTE]', "> The service cannot filter runs by metadata on this plan, so the pass listed every run in the window and kept this repository's.", '');
    }
    if (report.rows.length === 0)
        return lines.join('\n');
    const sorted = [...report.rows].sort((a, b) => ORDER[a.action] - ORDER[b.action]);
    lines.push('| Run | State | Done | Why |', '|---|---|---|---|');
    for (const row of sorted.slice(0, reconcile_MAX_ROWS)) {
        const words = reconcile_WORDS[row.action];
        lines.push(`| ${runCell(row)} | ${escapeMarkdown(row.state)} | ${dry ? words.dry : words.done} | ${inlineText(row.why)} |`);
    }
    if (sorted.length > reconcile_MAX_ROWS) {
        lines.push('', `\u2026and ${sorted.length - reconcile_MAX_ROWS} more run(s), in the log.`);
    }
    lines.push('');
    return lines.join('\n');
}
function runCell(row) {
    const id = `<code>${escapeMarkdown(row.runId)}</code>`;
    const title = row.title?.trim() ? `${inlineText(row.title.trim().slice(0, 80))} ` : '';
    const session = safeHttpUrl(row.sessionLink);
    return session ? `${title}[${id}](${session})` : `${title}${id}`;
}
async function publishPass(io, report) {
    const ids = (action) => report.dryRun ? [] : report.rows.filter((row) => row.action === action).map((row) => row.runId);
    io.setOutput('finalized', JSON.stringify(ids('finalized')));
    io.setOutput('swept', JSON.stringify(ids('swept')));
    await writeSummary(io, renderPassSummary(report));
    const failed = report.rows.filter((row) => row.action === 'failed').length;
    const done = report.rows.filter((row) => row.action === 'finalized' || row.action === 'swept');
    if (failed > 0 && done.length === 0) {
        io.setFailed(`The reconcile pass could do nothing: all ${failed} run(s) it had to finish or sweep failed (see the warnings above).`);
    }
}

;// CONCATENATED MODULE: ./src/reconcile/plan.ts




function firstLook(run, handoff, options) {
    if (!handoff) {
        return { kind: 'leave', why: 'its metadata has no hand-over (an older version started it)' };
    }
    if (handoff.repository !== options.repository) {
        return { kind: 'leave', why: `it belongs to ${handoff.repository}` };
    }
    if (isTerminal(run.state)) {
        if (handoff.set && handoff.waits) {
            return {
                kind: 'leave',
                why: "it is a run of a `tasks` step, whose comment and commit status show the whole set: they are that step's",
            };
        }
        if (!handoff.comment && !handoff.commitStatus) {
            return { kind: 'leave', why: 'its step asked for no comment or commit status' };
        }
        return { kind: handoff.set ? 'finish-set' : 'finish', handoff };
    }
    if (handoff.set && !handoff.waits) {
        if (options.sweep && meaningOf(run.state) !== 'blocked')
            return { kind: 'set-sweep-check', handoff };
        return { kind: 'leave', why: DETACHED_SET_GOING };
    }
    if (!handoff.waits && handoff.thread === undefined) {
        return { kind: 'leave', why: 'it is still running; a later pass finishes it' };
    }
    if (meaningOf(run.state) === 'blocked') {
        return { kind: 'leave', why: 'it waits for a person (BLOCKED), and cannot be cancelled' };
    }
    if (!options.sweep) {
        return {
            kind: 'leave',
            why: handoff.waits
                ? 'its step waits for it (sweep is off)'
                : 'it is still running; a later pass finishes it',
        };
    }
    return { kind: 'sweep-check', handoff };
}
const DETACHED_SET_GOING = 'it is still running; a later pass finishes its set';
function detachedSetHandedOver(shown, setId) {
    const { comment, status } = shown;
    if (comment?.outcome !== undefined)
        return true;
    if (status && (status.state !== 'pending' || status.description.includes(`(set ${setId})`))) {
        return true;
    }
    return !shown.shows && shown.everyTaskRan();
}
function tasksWithRuns(setId, runs) {
    const tasks = new Set();
    for (const run of runs) {
        const own = readHandoff(run.metadata);
        if (own?.set === setId && own.task !== undefined)
            tasks.add(own.task);
    }
    return tasks.size;
}
function setStarterLost(workflow) {
    if (!workflow?.over) {
        return {
            kind: 'leave',
            why: `its step is still starting its set (workflow run ${workflow?.status ?? 'unknown'})`,
        };
    }
    if (workflow.conclusion === 'success') {
        return {
            kind: 'leave',
            why: 'its workflow run succeeded, and a lost runner fails its job: its step handed the set over',
        };
    }
    return { kind: 'sweep' };
}
const MEANT_TO_STOP = new Set([
    'timed_out',
    'over_budget',
    'interrupted',
    'error',
]);
function waitingStep(handoff, traces) {
    const [latest] = [...traces].sort((a, b) => compareWorkflowRuns(b.workflowRun, a.workflowRun));
    if (latest) {
        const { outcome } = latest;
        if (outcome === 'started') {
            return { kind: 'leave', why: 'it is still running; a later pass finishes it' };
        }
        if (outcome !== undefined && !MEANT_TO_STOP.has(outcome)) {
            return {
                kind: 'leave',
                why: `its latest step (workflow run ${latest.workflowRun.workflowRunId}) ended on purpose (${outcome}) and let it run on: it was not left behind`,
            };
        }
        return { kind: 'check', workflowRun: latest.workflowRun, trace: latest };
    }
    if (!handoff.waits)
        return { kind: 'leave', why: 'it is still running; a later pass finishes it' };
    if (!handoff.workflowRunId) {
        return { kind: 'leave', why: 'its metadata names no workflow run to check' };
    }
    return {
        kind: 'check',
        workflowRun: { workflowRunId: handoff.workflowRunId, attempt: handoff.attempt },
        trace: undefined,
    };
}
function handedToPerson(shown, runId, repository) {
    if (!shown?.handedOff?.includes(runId))
        return undefined;
    const workflowRun = workflowRunOf(shown.workflowRun, repository);
    const which = workflowRun ? ` (workflow run ${workflowRun.workflowRunId})` : '';
    return {
        kind: 'leave',
        why: `its set's step${which} handed it to a person (BLOCKED) and ended: it was not left behind`,
    };
}
function compareWorkflowRuns(a, b) {
    const ids = BigInt(a.workflowRunId) - BigInt(b.workflowRunId);
    if (ids !== 0n)
        return ids > 0n ? 1 : -1;
    return (a.attempt ?? 1) - (b.attempt ?? 1);
}
function workflowRunOf(url, repository) {
    const link = url ?? '';
    const match = /\/actions\/runs\/(\d{1,20})(?:\/attempts\/(\d{1,6}))?$/.exec(link);
    if (!match?.[1] || !/^https?:\/\//.test(link))
        return undefined;
    if (!link.slice(0, match.index).endsWith(`/${repository}`))
        return undefined;
    return { workflowRunId: match[1], attempt: match[2] ? Number(match[2]) : undefined };
}
function lostRunner(workflow) {
    if (!workflow?.over) {
        return {
            lost: false,
            why: `its step waits for it (workflow run ${workflow?.status ?? 'unknown'})`,
        };
    }
    if (workflow.conclusion === 'success') {
        return {
            lost: false,
            why: 'its workflow run succeeded, and a lost runner fails its job: its step ended on purpose and let it run on',
        };
    }
    return { lost: true };
}
function handedOnTo(judged, newer) {
    if (judged?.conclusion !== 'cancelled' || !newer)
        return { kind: 'sweep' };
    const which = `a newer workflow run of the same workflow for its pull request (${newer.id})`;
    if (newer.status !== 'completed') {
        return {
            kind: 'leave',
            why: `its step's workflow run was cancelled, and ${which} is ${newer.status}: a step there may steer it (previous_run: steer)`,
        };
    }
    if (newer.conclusion === 'success') {
        return {
            kind: 'leave',
            why: `its step's workflow run was cancelled, and ${which} succeeded: a step there may have steered it and let it run on`,
        };
    }
    return { kind: 'sweep' };
}
function commentShowsEnd(shown) {
    return shown.outcome !== undefined ? shown.outcome !== 'started' : isTerminal(shown.state);
}
function statusLeftPending(status, runId) {
    return status?.state === 'pending' && status.description.includes(`(run ${runId})`);
}
function setStatusLeftPending(status, setId) {
    return status?.state === 'pending' && status.description.includes(`(set ${setId})`);
}
function detachedSetStanding(handoff, runs) {
    const { set, tasks: total, passWhen } = handoff;
    if (set === undefined || total === undefined || passWhen === undefined) {
        return { kind: 'unknown', why: "its metadata does not say the set's size and pass_when" };
    }
    const byTask = new Map();
    for (const run of runs) {
        const own = readHandoff(run.metadata);
        if (own?.set !== set || own.task === undefined || byTask.has(own.task))
            continue;
        byTask.set(own.task, run);
    }
    const going = [...byTask.values()].filter((run) => !isTerminal(run.state)).length;
    if (going > 0)
        return { kind: 'going', ended: byTask.size - going, total };
    const tasks = Array.from({ length: total }, (_, index) => {
        const run = byTask.get(index);
        if (!run) {
            return {
                index,
                request: {},
                invocation: '',
                createError: 'no run of this task was found: its create failed',
                settled: true,
            };
        }
        const startedAt = Date.parse(run.created_at ?? '');
        const at = Number.isFinite(startedAt) ? startedAt : 0;
        return {
            index,
            request: { prompt: run.prompt, title: run.title },
            invocation: run.run_id,
            runId: run.run_id,
            run,
            startedAt: at,
            endedAt: at + elapsedOf(run),
            settled: true,
        };
    });
    const counts = { tasks: total, succeeded: 0, notSucceeded: 0 };
    for (const task of tasks) {
        if (standingOf(task) === 'succeeded')
            counts.succeeded += 1;
        else
            counts.notSucceeded += 1;
    }
    const started = tasks.flatMap((task) => (task.run ? [task.startedAt ?? 0] : []));
    const ended = tasks.flatMap((task) => (task.run ? [task.endedAt ?? 0] : []));
    const elapsedMs = started.length > 0 ? Math.max(...ended) - Math.min(...started) : 0;
    return {
        kind: 'ended',
        outcome: {
            word: passWhenStanding(passWhen, counts) === 'met' ? 'succeeded' : 'failed',
            tasks,
            reason: `the step asked for ${describePassWhen(passWhen, total)}`,
            elapsedMs,
            listFallback: false,
        },
    };
}
function elapsedOf(run) {
    const fromService = run.run_time ? parseIsoDuration(run.run_time) : undefined;
    if (fromService !== undefined)
        return fromService;
    const span = Date.parse(run.updated_at ?? '') - Date.parse(run.created_at ?? '');
    return Number.isFinite(span) && span > 0 ? span : 0;
}

;// CONCATENATED MODULE: ./src/reconcile/walk.ts

async function walkRuns(runs, judge, pass) {
    const rows = [];
    for (const run of runs) {
        const row = pass.now() > pass.deadline
            ? walk_rowOf(run, 'left', 'the pass ran out of time; the next pass takes it up')
            : await judge(run);
        const log = row.action === 'failed' ? pass.log.warning : pass.log.info;
        log(`Run ${safeForLog(row.runId)}: ${pass.dryRun ? 'dry run, ' : ''}${row.action}: ${row.why}`);
        rows.push(row);
    }
    return rows;
}
function walk_rowOf(run, action, why) {
    return {
        runId: run.run_id,
        ...(run.title ? { title: run.title } : {}),
        state: run.state,
        ...(run.session_link ? { sessionLink: run.session_link } : {}),
        action,
        why,
    };
}

;// CONCATENATED MODULE: ./src/reconcile/finish-run.ts










const LOST_RUNNER = 'The step that waited for this run lost its runner: its workflow run completed without it.';
async function finishRun(run, handoff, settings, deps) {
    const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined;
    const commentDue = comment && !commentShowsEnd(comment.shown) ? comment : undefined;
    const statusesDue = handoff.commitStatus && !(comment && !commentDue)
        ? await pendingStatuses(run, statusHeads(handoff, comment?.shown), deps)
        : [];
    const statusDue = statusesDue.length > 0;
    if (!commentDue && !statusDue) {
        return walk_rowOf(run, 'up-to-date', upToDateWhy(handoff, comment !== undefined));
    }
    let notes = [];
    if (handoff.waits) {
        const workflow = await deps.desk.workflowRun(handoff);
        if (!workflow?.over) {
            return walk_rowOf(run, 'left', `its step is still reporting it (workflow run ${workflow?.status ?? 'unknown'})`);
        }
        notes = [LOST_RUNNER];
    }
    const shows = [commentDue ? 'comment' : '', statusDue ? 'commit status' : ''].filter(Boolean);
    const why = `it ended ${run.state}; its ${shows.join(' and ')} still showed it going`;
    if (settings.dryRun)
        return walk_rowOf(run, 'finalized', why);
    const newer = await findSupersedingRun(deps.client, run, { sleep: deps.sleep, now: deps.now });
    const children = await childrenAtEnd(run, deps);
    const outcome = {
        kind: 'finished',
        run,
        elapsedMs: elapsedOf(run),
        ...(newer ? { supersededBy: newer.run_id } : {}),
        ...(children.length > 0 ? { children } : {}),
    };
    for (const due of statusesDue) {
        if (newer?.metadata?.[STEP_KEYS.headSha] === due.on.headSha)
            continue;
        const report = finalStatus(outcome, due.workflowRun ?? deps.desk.stepWorkflowRunUrl(handoff));
        if (!(await deps.desk.setStatus(due.on, report, deps.log))) {
            return walk_rowOf(run, 'failed', `${why}; GitHub refused the status, so the next pass tries again`);
        }
    }
    if (commentDue) {
        const answer = await answerOf(run, deps);
        const context = { outcome: commentOutcomeOf(outcome, false), answer, notes };
        const spot = deps.desk.stepSpot(handoff, commentDue.commentId);
        if (!(await deps.desk.showInComment(handoff, spot, run, context, deps.log))) {
            return walk_rowOf(run, 'failed', `${why}; GitHub refused the comment, so the next pass tries again`);
        }
    }
    return walk_rowOf(run, 'finalized', why);
}
function statusHeads(handoff, shown) {
    const heads = [{ on: handoff, workflowRun: undefined }];
    if (shown?.head && shown.head !== handoff.headSha) {
        heads.push({ on: { ...handoff, headSha: shown.head }, workflowRun: shown.workflowRun });
    }
    return heads;
}
async function pendingStatuses(run, heads, deps) {
    const read = await Promise.all(heads.map((head) => deps.desk.stepStatus(head.on)));
    return heads.filter((_, index) => statusLeftPending(read[index], run.run_id));
}
function answerOf(run, deps) {
    const quiet = { info: deps.log.debug, warning: deps.log.warning, debug: deps.log.debug };
    const signal = AbortSignal.timeout(timing/* RECONCILE_PASS */.Rm.answerMs);
    return readAnswer(run.run_id, agentWorkSources(deps.client), quiet, signal);
}
function upToDateWhy(handoff, commentFound, what = 'run') {
    const it = what === 'set' ? 'its set' : 'it';
    if (handoff.comment && !commentFound) {
        return `no comment of its step lists ${it}, and its commit status is not left pending`;
    }
    return what === 'set' ? "GitHub already shows its set's end" : 'GitHub already shows its end';
}
async function childrenAtEnd(run, deps) {
    try {
        return await readChildren(deps.client, run.run_id, {}, {
            timeoutMs: timing/* CHILDREN_READ_MS */.sT,
            maxRetries: 0,
        });
    }
    catch {
        return [];
    }
}

;// CONCATENATED MODULE: ./src/reconcile/finish-set.ts









async function finishSetOnce(run, handoff, settings, deps, pass) {
    const setId = handoff.set ?? '';
    const seen = pass.sets.ended.get(setId);
    if (seen?.action === 'up-to-date')
        return walk_rowOf(run, 'up-to-date', seen.why);
    if (seen?.action === 'finalized') {
        return walk_rowOf(run, 'up-to-date', `its set's end was written in this pass, with run ${seen.runId}`);
    }
    if (seen)
        return walk_rowOf(run, 'left', `its set was taken up with run ${seen.runId}: ${seen.why}`);
    const row = await finishSet(run, handoff, settings, deps, pass);
    pass.sets.ended.set(setId, { runId: run.run_id, action: row.action, why: row.why });
    return row;
}
async function finishSet(run, handoff, settings, deps, pass) {
    const setId = handoff.set ?? '';
    const comment = handoff.comment ? await deps.desk.setComment(handoff) : undefined;
    const commentDue = comment && !commentShowsEnd({ state: '', outcome: comment.shown.outcome });
    const status = handoff.commitStatus && !(comment && !commentDue)
        ? await deps.desk.stepStatus(handoff)
        : undefined;
    const statusDue = setStatusLeftPending(status, setId);
    if (!commentDue && !statusDue) {
        return walk_rowOf(run, 'up-to-date', upToDateWhy(handoff, comment !== undefined, 'set'));
    }
    const standing = detachedSetStanding(handoff, await setRuns(handoff, deps, pass));
    if (standing.kind === 'unknown')
        return walk_rowOf(run, 'left', standing.why);
    if (standing.kind === 'going') {
        const going = standing.total - standing.ended;
        return walk_rowOf(run, 'left', `its set is still going (${going} of its ${standing.total} runs): the pass that finds the last ended finishes the set`);
    }
    const view = { kind: 'ended', outcome: standing.outcome };
    const [tally] = setHeadline(view).figures;
    const shows = [commentDue ? 'comment' : '', statusDue ? 'commit status' : ''].filter(Boolean);
    const why = `its set ended ${standing.outcome.word} (${tally}); its ${shows.join(' and ')} still showed the set started`;
    if (settings.dryRun)
        return walk_rowOf(run, 'finalized', why);
    const workflowRun = deps.desk.stepWorkflowRunUrl(handoff);
    if (statusDue) {
        const { state, description } = setStatusOf(view);
        const report = { state, description: oneLine(description), targetUrl: workflowRun };
        if (!(await deps.desk.setStatus(handoff, report, deps.log))) {
            return walk_rowOf(run, 'failed', `${why}; GitHub refused the status, so the next pass tries again`);
        }
    }
    if (comment && commentDue) {
        const { done, total } = setCounts(standing.outcome.tasks);
        const body = renderSetComment(view, workflowRun, SET_COMMENT_TABLE_CHARS);
        const shown = { body, outcome: standing.outcome.word, done, total };
        if (!(await deps.desk.showSetEnd(handoff, comment.commentId, shown, deps.log))) {
            return walk_rowOf(run, 'failed', `${why}; GitHub refused the comment, so the next pass tries again`);
        }
    }
    return walk_rowOf(run, 'finalized', why);
}
async function setRuns(handoff, deps, pass) {
    const tags = { [STEP_KEYS.repository]: handoff.repository, [STEP_KEYS.set]: handoff.set ?? '' };
    const listed = pass.sets.listed.filter((one) => carriesTags(one, tags));
    if (listed.length >= (handoff.tasks ?? 0))
        return listed;
    const own = await listTaggedRuns(deps.client, tags, {}, {
        maxPages: timing/* RECONCILE_PASS */.Rm.maxPages,
        deadline: pass.deadline,
    });
    return own.runs;
}

;// CONCATENATED MODULE: ./src/reconcile/set-sweep.ts



const SET_LOST_WHILE_STARTING = "The step of this set lost its runner while it started the set's runs: it never handed the set over. A reconcile pass cancelled the runs it had created.";
async function sweepDetachedSetRun(run, handoff, options, deps) {
    const setId = handoff.set ?? '';
    const commented = handoff.comment && handoff.thread !== undefined;
    const statused = handoff.commitStatus && handoff.headSha !== undefined;
    const [comment, status] = await Promise.all([
        commented ? deps.desk.setComment(handoff) : undefined,
        statused ? deps.desk.stepStatus(handoff) : undefined,
    ]);
    const runs = commented || statused ? [] : await deps.setRuns();
    const everyTaskRan = () => tasksWithRuns(setId, runs) >= (handoff.tasks ?? Infinity);
    const shown = { shows: Boolean(commented || statused), comment: comment?.shown, status };
    if (detachedSetHandedOver({ ...shown, everyTaskRan }, setId)) {
        return { action: 'left', why: DETACHED_SET_GOING, run };
    }
    const judged = setStarterLost(await deps.desk.workflowRun(handoff));
    if (judged.kind === 'leave')
        return { action: 'left', why: judged.why, run };
    const why = `it was still ${run.state} after the workflow run of its set's step (${handoff.workflowRunId ?? 'unknown'}) completed before that step handed the set over: its runner was lost while it started the set`;
    if (options.dryRun)
        return { action: 'swept', why, run };
    const cancel = await requestCancel(deps.client, run.run_id, { deadline: options.deadline });
    if (cancel.kind === 'already-finished') {
        return {
            action: 'left',
            why: 'it ended as the pass came to it; the next pass finishes it',
            run,
        };
    }
    if (cancel.kind !== 'cancelled') {
        return { action: 'failed', why: describeCancel(run.run_id, cancel), run };
    }
    let ended = run;
    try {
        ended = await deps.client.getRun(run.run_id, { deadline: options.deadline, maxRetries: 1 });
    }
    catch {
    }
    await deps.desk.markSetStopped(handoff, SET_LOST_WHILE_STARTING, deps.log);
    return { action: 'swept', why, run: ended };
}

;// CONCATENATED MODULE: ./src/reconcile/sweep.ts






const SET_LOST_RUNNER = 'The step of this set lost its runner: its workflow run completed without it, so its post step never ran. A reconcile pass cancels the runs it left going; the table shows them as the step last saw them.';
async function sweepRun(run, handoff, settings, deps, deadline) {
    if (handoff.set !== undefined) {
        const setShown = await deps.desk.setComment(handoff);
        const letGo = handedToPerson(setShown?.shown, run.run_id, settings.repository);
        if (letGo)
            return walk_rowOf(run, 'left', letGo.why);
    }
    const traces = (await deps.desk.runComments(handoff, run.run_id)).flatMap((comment) => {
        const workflowRun = workflowRunOf(comment.shown.workflowRun, settings.repository);
        return workflowRun ? [{ ...comment, workflowRun, outcome: comment.shown.outcome }] : [];
    });
    const waiting = waitingStep(handoff, traces);
    if (waiting.kind === 'leave')
        return walk_rowOf(run, 'left', waiting.why);
    const workflow = await deps.desk.workflowRun(waiting.workflowRun);
    const judged = lostRunner(workflow);
    if (!judged.lost)
        return walk_rowOf(run, 'left', judged.why);
    const workflowRunId = waiting.workflowRun.workflowRunId;
    if (workflow?.conclusion === 'cancelled' && handoff.thread !== undefined) {
        const newer = await deps.desk.newerWorkflowRun(waiting.workflowRun, handoff.thread);
        const handedOn = handedOnTo(workflow, newer);
        if (handedOn.kind === 'leave')
            return walk_rowOf(run, 'left', handedOn.why);
    }
    const stopped = waiting.trace?.outcome;
    const why = stopped
        ? `it was still ${run.state} after its step ended ${stopped} and that step's workflow run (${workflowRunId}) completed: the step's cancel did not stop it`
        : `it was still ${run.state} after the workflow run of the step waiting for it (${workflowRunId}) completed: that step's runner was lost`;
    const note = stopped
        ? `The step that waited for this run ended (${stopped}) without stopping it, and its workflow run completed. A reconcile pass cancelled the run.`
        : `${LOST_RUNNER} A reconcile pass cancelled the run.`;
    if (settings.dryRun)
        return walk_rowOf(run, 'swept', why);
    const cancel = await requestCancel(deps.client, run.run_id, { deadline });
    if (cancel.kind === 'already-finished') {
        return walk_rowOf(run, 'left', 'it ended as the pass came to it; the next pass finishes it');
    }
    if (cancel.kind !== 'cancelled')
        return walk_rowOf(run, 'failed', describeCancel(run.run_id, cancel));
    let ended = run;
    try {
        ended = await deps.client.getRun(run.run_id, { deadline, maxRetries: 1 });
    }
    catch {
    }
    const [spot, statusesDue] = await Promise.all([
        commentSpotOf(waiting.trace, handoff, run, deps),
        handoff.commitStatus
            ? pendingStatuses(run, statusHeads(handoff, waiting.trace?.shown), deps)
            : [],
    ]);
    for (const due of statusesDue) {
        await deps.desk.setStatus(due.on, {
            state: 'error',
            description: oneLine(`Cancelled: its step's runner was lost (run ${run.run_id})`),
            targetUrl: due.workflowRun ?? deps.desk.stepWorkflowRunUrl(handoff),
        }, deps.log);
    }
    if (spot)
        await deps.desk.showInComment(handoff, spot, ended, { notes: [note] }, deps.log);
    await deps.desk.markSetStopped(handoff, SET_LOST_RUNNER, deps.log);
    return walk_rowOf(ended, 'swept', why);
}
async function commentSpotOf(trace, handoff, run, deps) {
    if (trace) {
        return { commentId: trace.commentId, key: trace.key, workflowRun: trace.shown.workflowRun };
    }
    const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined;
    return comment ? deps.desk.stepSpot(handoff, comment.commentId) : undefined;
}

;// CONCATENATED MODULE: ./src/reconcile/pass.ts












async function reconcilePass(settings, deps) {
    const deadline = deps.now() + timing/* RECONCILE_PASS */.Rm.deadlineMs;
    const since = new Date(deps.now() - settings.lookbackMs).toISOString();
    const found = await listTaggedRuns(deps.client, { [STEP_KEYS.repository]: settings.repository }, { updated_after: since }, { maxPages: timing/* RECONCILE_PASS */.Rm.maxPages, deadline });
    const listed = { ...found, runs: found.runs.filter((run) => forgeTagOf(run) === 'github') };
    if (listed.filteredHere) {
        deps.log.info(`The service cannot filter runs by metadata on this plan (feature_not_available): listed every run updated since ${since} and kept those tagged ${STEP_KEYS.repository}=${settings.repository}.`);
    }
    deps.log.info(`${listed.runs.length} run(s) of ${settings.repository} updated within ${formatDuration(settings.lookbackMs)}.`);
    const commentsFrom = commentsSince(listed.runs);
    if (commentsFrom)
        deps.desk.commentsSince(commentsFrom);
    const sets = { listed: listed.runs, ended: new Map() };
    const rows = await walkRuns(listed.runs, (run) => reconcileRun(run, settings, deps, deadline, sets), {
        now: deps.now,
        deadline,
        dryRun: settings.dryRun,
        log: deps.log,
    });
    return {
        rows,
        filteredHere: listed.filteredHere,
        dryRun: settings.dryRun,
        lookbackMs: settings.lookbackMs,
    };
}
async function reconcileRun(run, settings, deps, deadline, sets) {
    const look = firstLook(run, readHandoff(run.metadata), settings);
    try {
        switch (look.kind) {
            case 'leave':
                return walk_rowOf(run, 'left', look.why);
            case 'finish':
                return await finishRun(run, look.handoff, settings, deps);
            case 'sweep-check':
                return await sweepRun(run, look.handoff, settings, deps, deadline);
            case 'finish-set':
                return await finishSetOnce(run, look.handoff, settings, deps, { deadline, sets });
            case 'set-sweep-check': {
                const options = { dryRun: settings.dryRun, deadline };
                const setRunsOf = () => setRuns(look.handoff, deps, { deadline, sets });
                const swept = await sweepDetachedSetRun(run, look.handoff, options, {
                    ...deps,
                    setRuns: setRunsOf,
                });
                return walk_rowOf(swept.run, swept.action, swept.why);
            }
        }
    }
    catch (error) {
        return walk_rowOf(run, 'failed', `GitHub could not be read: ${pass_reasonOf(error)}`);
    }
}
function commentsSince(runs) {
    const starts = runs.map((run) => Date.parse(run.created_at ?? '')).filter(Number.isFinite);
    if (starts.length === 0)
        return undefined;
    return new Date(Math.min(...starts) - timing/* RECONCILE_PASS */.Rm.commentsMarginMs).toISOString();
}
function pass_reasonOf(error) {
    return safeForLog(error instanceof Error ? error.message : String(error), 300);
}

;// CONCATENATED MODULE: ./src/reconcile/main.ts








async function reconcile_main_run(io, inputs) {
    await runStepBody(io, async () => {
        const settings = readReconcileSettings(inputs);
        const client = serviceClient(settings, io);
        const github = new GitHubContext(settings.githubToken, inputs.world);
        const desk = await RepositoryDesk.open(github, settings.repository);
        const report = await reconcilePass(settings, {
            client,
            desk,
            now: Date.now,
            sleep: abortableSleep,
            log: io,
        });
        await publishPass(io, report);
    });
}

;// CONCATENATED MODULE: external "os"
const external_os_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("os");
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/utils.js
// We use any as a valid input type
/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * Sanitizes an input into a string so it can be passed into issueCommand safely
 * @param input input to sanitize into a string
 */
function utils_toCommandValue(input) {
    if (input === null || input === undefined) {
        return '';
    }
    else if (typeof input === 'string' || input instanceof String) {
        return input;
    }
    return JSON.stringify(input);
}
/**
 *
 * @param annotationProperties
 * @returns The command properties to send with the actual annotation command
 * See IssueCommandProperties: https://github.com/actions/runner/blob/main/src/Runner.Worker/ActionCommandManager.cs#L646
 */
function toCommandProperties(annotationProperties) {
    if (!Object.keys(annotationProperties).length) {
        return {};
    }
    return {
        title: annotationProperties.title,
        file: annotationProperties.file,
        line: annotationProperties.startLine,
        endLine: annotationProperties.endLine,
        col: annotationProperties.startColumn,
        endColumn: annotationProperties.endColumn
    };
}
//# sourceMappingURL=utils.js.map
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/command.js


/**
 * Issues a command to the GitHub Actions runner
 *
 * @param command - The command name to issue
 * @param properties - Additional properties for the command (key-value pairs)
 * @param message - The message to include with the command
 * @remarks
 * This function outputs a specially formatted string to stdout that the Actions
 * runner interprets as a command. These commands can control workflow behavior,
 * set outputs, create annotations, mask values, and more.
 *
 * Command Format:
 *   ::name key=value,key=value::message
 *
 * @example
 * ```typescript
 * // Issue a warning annotation
 * issueCommand('warning', {}, 'This is a warning message');
 * // Output: ::warning::This is a warning message
 *
 * // Set an environment variable
 * issueCommand('set-env', { name: 'MY_VAR' }, 'some value');
 * // Output: ::set-env name=MY_VAR::some value
 *
 * // Add a secret mask
 * issueCommand('add-mask', {}, 'secretValue123');
 * // Output: ::add-mask::secretValue123
 * ```
 *
 * @internal
 * This is an internal utility function that powers the public API functions
 * such as setSecret, warning, error, and exportVariable.
 */
function command_issueCommand(command, properties, message) {
    const cmd = new Command(command, properties, message);
    process.stdout.write(cmd.toString() + external_os_namespaceObject.EOL);
}
function command_issue(name, message = '') {
    command_issueCommand(name, {}, message);
}
const CMD_STRING = '::';
class Command {
    constructor(command, properties, message) {
        if (!command) {
            command = 'missing.command';
        }
        this.command = command;
        this.properties = properties;
        this.message = message;
    }
    toString() {
        let cmdStr = CMD_STRING + this.command;
        if (this.properties && Object.keys(this.properties).length > 0) {
            cmdStr += ' ';
            let first = true;
            for (const key in this.properties) {
                if (this.properties.hasOwnProperty(key)) {
                    const val = this.properties[key];
                    if (val) {
                        if (first) {
                            first = false;
                        }
                        else {
                            cmdStr += ',';
                        }
                        cmdStr += `${key}=${escapeProperty(val)}`;
                    }
                }
            }
        }
        cmdStr += `${CMD_STRING}${escapeData(this.message)}`;
        return cmdStr;
    }
}
function escapeData(s) {
    return utils_toCommandValue(s)
        .replace(/%/g, '%25')
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A');
}
function escapeProperty(s) {
    return utils_toCommandValue(s)
        .replace(/%/g, '%25')
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A')
        .replace(/:/g, '%3A')
        .replace(/,/g, '%2C');
}
//# sourceMappingURL=command.js.map
;// CONCATENATED MODULE: external "crypto"
const external_crypto_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("crypto");
;// CONCATENATED MODULE: external "fs"
const external_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("fs");
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/file-command.js
// For internal use, subject to change.
// We use any as a valid input type
/* eslint-disable @typescript-eslint/no-explicit-any */




function file_command_issueFileCommand(command, message) {
    const filePath = process.env[`GITHUB_${command}`];
    if (!filePath) {
        throw new Error(`Unable to find environment variable for file command ${command}`);
    }
    if (!external_fs_namespaceObject.existsSync(filePath)) {
        throw new Error(`Missing file at path: ${filePath}`);
    }
    external_fs_namespaceObject.appendFileSync(filePath, `${utils_toCommandValue(message)}${external_os_namespaceObject.EOL}`, {
        encoding: 'utf8'
    });
}
function file_command_prepareKeyValueMessage(key, value) {
    const delimiter = `ghadelimiter_${external_crypto_namespaceObject.randomUUID()}`;
    const convertedValue = utils_toCommandValue(value);
    // These should realistically never happen, but just in case someone finds a
    // way to exploit uuid generation let's not allow keys or values that contain
    // the delimiter.
    if (key.includes(delimiter)) {
        throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
    }
    if (convertedValue.includes(delimiter)) {
        throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
    }
    return `${key}<<${delimiter}${external_os_namespaceObject.EOL}${convertedValue}${external_os_namespaceObject.EOL}${delimiter}`;
}
//# sourceMappingURL=file-command.js.map
;// CONCATENATED MODULE: external "path"
const external_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("path");
;// CONCATENATED MODULE: ./node_modules/@actions/http-client/lib/auth.js
var __awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};
class BasicCredentialHandler {
    constructor(username, password) {
        this.username = username;
        this.password = password;
    }
    prepareRequest(options) {
        if (!options.headers) {
            throw Error('The request has no headers');
        }
        options.headers['Authorization'] = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
    }
    // This handler cannot handle 401
    canHandleAuthentication() {
        return false;
    }
    handleAuthentication() {
        return __awaiter(this, void 0, void 0, function* () {
            throw new Error('not implemented');
        });
    }
}
class auth_BearerCredentialHandler {
    constructor(token) {
        this.token = token;
    }
    // currently implements pre-authorization
    // TODO: support preAuth = false where it hooks on 401
    prepareRequest(options) {
        if (!options.headers) {
            throw Error('The request has no headers');
        }
        options.headers['Authorization'] = `Bearer ${this.token}`;
    }
    // This handler cannot handle 401
    canHandleAuthentication() {
        return false;
    }
    handleAuthentication() {
        return __awaiter(this, void 0, void 0, function* () {
            throw new Error('not implemented');
        });
    }
}
class PersonalAccessTokenCredentialHandler {
    constructor(token) {
        this.token = token;
    }
    // currently implements pre-authorization
    // TODO: support preAuth = false where it hooks on 401
    prepareRequest(options) {
        if (!options.headers) {
            throw Error('The request has no headers');
        }
        options.headers['Authorization'] = `Basic ${Buffer.from(`PAT:${this.token}`).toString('base64')}`;
    }
    // This handler cannot handle 401
    canHandleAuthentication() {
        return false;
    }
    handleAuthentication() {
        return __awaiter(this, void 0, void 0, function* () {
            throw new Error('not implemented');
        });
    }
}
//# sourceMappingURL=auth.js.map
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/oidc-utils.js
var oidc_utils_awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};



class oidc_utils_OidcClient {
    static createHttpClient(allowRetry = true, maxRetry = 10) {
        const requestOptions = {
            allowRetries: allowRetry,
            maxRetries: maxRetry
        };
        return new HttpClient('actions/oidc-client', [new BearerCredentialHandler(oidc_utils_OidcClient.getRequestToken())], requestOptions);
    }
    static getRequestToken() {
        const token = process.env['ACTIONS_ID_TOKEN_REQUEST_TOKEN'];
        if (!token) {
            throw new Error('Unable to get ACTIONS_ID_TOKEN_REQUEST_TOKEN env variable');
        }
        return token;
    }
    static getIDTokenUrl() {
        const runtimeUrl = process.env['ACTIONS_ID_TOKEN_REQUEST_URL'];
        if (!runtimeUrl) {
            throw new Error('Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env variable');
        }
        return runtimeUrl;
    }
    static getCall(id_token_url) {
        return oidc_utils_awaiter(this, void 0, void 0, function* () {
            var _a;
            const httpclient = oidc_utils_OidcClient.createHttpClient();
            const res = yield httpclient
                .getJson(id_token_url)
                .catch(error => {
                throw new Error(`Failed to get ID Token. \n 
        Error Code : ${error.statusCode}\n 
        Error Message: ${error.message}`);
            });
            const id_token = (_a = res.result) === null || _a === void 0 ? void 0 : _a.value;
            if (!id_token) {
                throw new Error('Response json body do not have ID Token field');
            }
            return id_token;
        });
    }
    static getIDToken(audience) {
        return oidc_utils_awaiter(this, void 0, void 0, function* () {
            try {
                // New ID Token is requested from action service
                let id_token_url = oidc_utils_OidcClient.getIDTokenUrl();
                if (audience) {
                    const encodedAudience = encodeURIComponent(audience);
                    id_token_url = `${id_token_url}&audience=${encodedAudience}`;
                }
                debug(`ID token url is ${id_token_url}`);
                const id_token = yield oidc_utils_OidcClient.getCall(id_token_url);
                setSecret(id_token);
                return id_token;
            }
            catch (error) {
                throw new Error(`Error message: ${error.message}`);
            }
        });
    }
}
//# sourceMappingURL=oidc-utils.js.map
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/summary.js
var summary_awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};


const access = (...args) => external_fs_namespaceObject.promises.access(...args), appendFile = (...args) => external_fs_namespaceObject.promises.appendFile(...args), writeFile = (...args) => external_fs_namespaceObject.promises.writeFile(...args);
const SUMMARY_ENV_VAR = 'GITHUB_STEP_SUMMARY';
const SUMMARY_DOCS_URL = 'https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary';
class Summary {
    constructor() {
        this._buffer = '';
    }
    /**
     * Finds the summary file path from the environment, rejects if env var is not found or file does not exist
     * Also checks r/w permissions.
     *
     * @returns step summary file path
     */
    filePath() {
        return summary_awaiter(this, void 0, void 0, function* () {
            if (this._filePath) {
                return this._filePath;
            }
            const pathFromEnv = process.env[SUMMARY_ENV_VAR];
            if (!pathFromEnv) {
                throw new Error(`Unable to find environment variable for $${SUMMARY_ENV_VAR}. Check if your runtime environment supports job summaries.`);
            }
            try {
                yield access(pathFromEnv, external_fs_namespaceObject.constants.R_OK | external_fs_namespaceObject.constants.W_OK);
            }
            catch (_a) {
                throw new Error(`Unable to access summary file: '${pathFromEnv}'. Check if the file has correct read/write permissions.`);
            }
            this._filePath = pathFromEnv;
            return this._filePath;
        });
    }
    /**
     * Wraps content in an HTML tag, adding any HTML attributes
     *
     * @param {string} tag HTML tag to wrap
     * @param {string | null} content content within the tag
     * @param {[attribute: string]: string} attrs key-value list of HTML attributes to add
     *
     * @returns {string} content wrapped in HTML element
     */
    wrap(tag, content, attrs = {}) {
        const htmlAttrs = Object.entries(attrs)
            .map(([key, value]) => ` ${key}="${value}"`)
            .join('');
        if (!content) {
            return `<${tag}${htmlAttrs}>`;
        }
        return `<${tag}${htmlAttrs}>${content}</${tag}>`;
    }
    /**
     * Writes text in the buffer to the summary buffer file and empties buffer. Will append by default.
     *
     * @param {SummaryWriteOptions} [options] (optional) options for write operation
     *
     * @returns {Promise<Summary>} summary instance
     */
    write(options) {
        return summary_awaiter(this, void 0, void 0, function* () {
            const overwrite = !!(options === null || options === void 0 ? void 0 : options.overwrite);
            const filePath = yield this.filePath();
            const writeFunc = overwrite ? writeFile : appendFile;
            yield writeFunc(filePath, this._buffer, { encoding: 'utf8' });
            return this.emptyBuffer();
        });
    }
    /**
     * Clears the summary buffer and wipes the summary file
     *
     * @returns {Summary} summary instance
     */
    clear() {
        return summary_awaiter(this, void 0, void 0, function* () {
            return this.emptyBuffer().write({ overwrite: true });
        });
    }
    /**
     * Returns the current summary buffer as a string
     *
     * @returns {string} string of summary buffer
     */
    stringify() {
        return this._buffer;
    }
    /**
     * If the summary buffer is empty
     *
     * @returns {boolen} true if the buffer is empty
     */
    isEmptyBuffer() {
        return this._buffer.length === 0;
    }
    /**
     * Resets the summary buffer without writing to summary file
     *
     * @returns {Summary} summary instance
     */
    emptyBuffer() {
        this._buffer = '';
        return this;
    }
    /**
     * Adds raw text to the summary buffer
     *
     * @param {string} text content to add
     * @param {boolean} [addEOL=false] (optional) append an EOL to the raw text (default: false)
     *
     * @returns {Summary} summary instance
     */
    addRaw(text, addEOL = false) {
        this._buffer += text;
        return addEOL ? this.addEOL() : this;
    }
    /**
     * Adds the operating system-specific end-of-line marker to the buffer
     *
     * @returns {Summary} summary instance
     */
    addEOL() {
        return this.addRaw(external_os_namespaceObject.EOL);
    }
    /**
     * Adds an HTML codeblock to the summary buffer
     *
     * @param {string} code content to render within fenced code block
     * @param {string} lang (optional) language to syntax highlight code
     *
     * @returns {Summary} summary instance
     */
    addCodeBlock(code, lang) {
        const attrs = Object.assign({}, (lang && { lang }));
        const element = this.wrap('pre', this.wrap('code', code), attrs);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML list to the summary buffer
     *
     * @param {string[]} items list of items to render
     * @param {boolean} [ordered=false] (optional) if the rendered list should be ordered or not (default: false)
     *
     * @returns {Summary} summary instance
     */
    addList(items, ordered = false) {
        const tag = ordered ? 'ol' : 'ul';
        const listItems = items.map(item => this.wrap('li', item)).join('');
        const element = this.wrap(tag, listItems);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML table to the summary buffer
     *
     * @param {SummaryTableCell[]} rows table rows
     *
     * @returns {Summary} summary instance
     */
    addTable(rows) {
        const tableBody = rows
            .map(row => {
            const cells = row
                .map(cell => {
                if (typeof cell === 'string') {
                    return this.wrap('td', cell);
                }
                const { header, data, colspan, rowspan } = cell;
                const tag = header ? 'th' : 'td';
                const attrs = Object.assign(Object.assign({}, (colspan && { colspan })), (rowspan && { rowspan }));
                return this.wrap(tag, data, attrs);
            })
                .join('');
            return this.wrap('tr', cells);
        })
            .join('');
        const element = this.wrap('table', tableBody);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds a collapsable HTML details element to the summary buffer
     *
     * @param {string} label text for the closed state
     * @param {string} content collapsable content
     *
     * @returns {Summary} summary instance
     */
    addDetails(label, content) {
        const element = this.wrap('details', this.wrap('summary', label) + content);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML image tag to the summary buffer
     *
     * @param {string} src path to the image you to embed
     * @param {string} alt text description of the image
     * @param {SummaryImageOptions} options (optional) addition image attributes
     *
     * @returns {Summary} summary instance
     */
    addImage(src, alt, options) {
        const { width, height } = options || {};
        const attrs = Object.assign(Object.assign({}, (width && { width })), (height && { height }));
        const element = this.wrap('img', null, Object.assign({ src, alt }, attrs));
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML section heading element
     *
     * @param {string} text heading text
     * @param {number | string} [level=1] (optional) the heading level, default: 1
     *
     * @returns {Summary} summary instance
     */
    addHeading(text, level) {
        const tag = `h${level}`;
        const allowedTag = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].includes(tag)
            ? tag
            : 'h1';
        const element = this.wrap(allowedTag, text);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML thematic break (<hr>) to the summary buffer
     *
     * @returns {Summary} summary instance
     */
    addSeparator() {
        const element = this.wrap('hr', null);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML line break (<br>) to the summary buffer
     *
     * @returns {Summary} summary instance
     */
    addBreak() {
        const element = this.wrap('br', null);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML blockquote to the summary buffer
     *
     * @param {string} text quote text
     * @param {string} cite (optional) citation url
     *
     * @returns {Summary} summary instance
     */
    addQuote(text, cite) {
        const attrs = Object.assign({}, (cite && { cite }));
        const element = this.wrap('blockquote', text, attrs);
        return this.addRaw(element).addEOL();
    }
    /**
     * Adds an HTML anchor tag to the summary buffer
     *
     * @param {string} text link text/content
     * @param {string} href hyperlink
     *
     * @returns {Summary} summary instance
     */
    addLink(text, href) {
        const element = this.wrap('a', text, { href });
        return this.addRaw(element).addEOL();
    }
}
const _summary = new Summary();
/**
 * @deprecated use `core.summary`
 */
const markdownSummary = (/* unused pure expression or super */ null && (_summary));
const summary = (/* unused pure expression or super */ null && (_summary));
//# sourceMappingURL=summary.js.map
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/path-utils.js

/**
 * toPosixPath converts the given path to the posix form. On Windows, \\ will be
 * replaced with /.
 *
 * @param pth. Path to transform.
 * @return string Posix path.
 */
function toPosixPath(pth) {
    return pth.replace(/[\\]/g, '/');
}
/**
 * toWin32Path converts the given path to the win32 form. On Linux, / will be
 * replaced with \\.
 *
 * @param pth. Path to transform.
 * @return string Win32 path.
 */
function toWin32Path(pth) {
    return pth.replace(/[/]/g, '\\');
}
/**
 * toPlatformPath converts the given path to a platform-specific path. It does
 * this by replacing instances of / and \ with the platform-specific path
 * separator.
 *
 * @param pth The path to platformize.
 * @return string The platform-specific path.
 */
function toPlatformPath(pth) {
    return pth.replace(/[/\\]/g, path.sep);
}
//# sourceMappingURL=path-utils.js.map
// EXTERNAL MODULE: ./vendor/no-exec/index.cjs
var no_exec = __nccwpck_require__(9150);
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/platform.js
var platform_awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};


const getWindowsInfo = () => platform_awaiter(void 0, void 0, void 0, function* () {
    const { stdout: version } = yield exec.getExecOutput('powershell -command "(Get-CimInstance -ClassName Win32_OperatingSystem).Version"', undefined, {
        silent: true
    });
    const { stdout: name } = yield exec.getExecOutput('powershell -command "(Get-CimInstance -ClassName Win32_OperatingSystem).Caption"', undefined, {
        silent: true
    });
    return {
        name: name.trim(),
        version: version.trim()
    };
});
const getMacOsInfo = () => platform_awaiter(void 0, void 0, void 0, function* () {
    var _a, _b, _c, _d;
    const { stdout } = yield exec.getExecOutput('sw_vers', undefined, {
        silent: true
    });
    const version = (_b = (_a = stdout.match(/ProductVersion:\s*(.+)/)) === null || _a === void 0 ? void 0 : _a[1]) !== null && _b !== void 0 ? _b : '';
    const name = (_d = (_c = stdout.match(/ProductName:\s*(.+)/)) === null || _c === void 0 ? void 0 : _c[1]) !== null && _d !== void 0 ? _d : '';
    return {
        name,
        version
    };
});
const getLinuxInfo = () => platform_awaiter(void 0, void 0, void 0, function* () {
    const { stdout } = yield exec.getExecOutput('lsb_release', ['-i', '-r', '-s'], {
        silent: true
    });
    const [name, version] = stdout.trim().split('\n');
    return {
        name,
        version
    };
});
const platform = external_os_namespaceObject.platform();
const arch = external_os_namespaceObject.arch();
const isWindows = platform === 'win32';
const isMacOS = platform === 'darwin';
const isLinux = platform === 'linux';
function getDetails() {
    return platform_awaiter(this, void 0, void 0, function* () {
        return Object.assign(Object.assign({}, (yield (isWindows
            ? getWindowsInfo()
            : isMacOS
                ? getMacOsInfo()
                : getLinuxInfo()))), { platform,
            arch,
            isWindows,
            isMacOS,
            isLinux });
    });
}
//# sourceMappingURL=platform.js.map
;// CONCATENATED MODULE: ./node_modules/@actions/core/lib/core.js
var core_awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};






/**
 * The code to exit an action
 */
var ExitCode;
(function (ExitCode) {
    /**
     * A code indicating that the action was successful
     */
    ExitCode[ExitCode["Success"] = 0] = "Success";
    /**
     * A code indicating that the action was a failure
     */
    ExitCode[ExitCode["Failure"] = 1] = "Failure";
})(ExitCode || (ExitCode = {}));
//-----------------------------------------------------------------------
// Variables
//-----------------------------------------------------------------------
/**
 * Sets env variable for this action and future actions in the job
 * @param name the name of the variable to set
 * @param val the value of the variable. Non-string values will be converted to a string via JSON.stringify
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function exportVariable(name, val) {
    const convertedVal = toCommandValue(val);
    process.env[name] = convertedVal;
    const filePath = process.env['GITHUB_ENV'] || '';
    if (filePath) {
        return issueFileCommand('ENV', prepareKeyValueMessage(name, val));
    }
    issueCommand('set-env', { name }, convertedVal);
}
/**
 * Registers a secret which will get masked from logs
 *
 * @param secret - Value of the secret to be masked
 * @remarks
 * This function instructs the Actions runner to mask the specified value in any
 * logs produced during the workflow run. Once registered, the secret value will
 * be replaced with asterisks (***) whenever it appears in console output, logs,
 * or error messages.
 *
 * This is useful for protecting sensitive information such as:
 * - API keys
 * - Access tokens
 * - Authentication credentials
 * - URL parameters containing signatures (SAS tokens)
 *
 * Note that masking only affects future logs; any previous appearances of the
 * secret in logs before calling this function will remain unmasked.
 *
 * @example
 * ```typescript
 * // Register an API token as a secret
 * const apiToken = "abc123xyz456";
 * setSecret(apiToken);
 *
 * // Now any logs containing this value will show *** instead
 * console.log(`Using token: ${apiToken}`); // Outputs: "Using token: ***"
 * ```
 */
function core_setSecret(secret) {
    command_issueCommand('add-mask', {}, secret);
}
/**
 * Prepends inputPath to the PATH (for this action and future actions)
 * @param inputPath
 */
function addPath(inputPath) {
    const filePath = process.env['GITHUB_PATH'] || '';
    if (filePath) {
        issueFileCommand('PATH', inputPath);
    }
    else {
        issueCommand('add-path', {}, inputPath);
    }
    process.env['PATH'] = `${inputPath}${path.delimiter}${process.env['PATH']}`;
}
/**
 * Gets the value of an input.
 * Unless trimWhitespace is set to false in InputOptions, the value is also trimmed.
 * Returns an empty string if the value is not defined.
 *
 * @param     name     name of the input to get
 * @param     options  optional. See InputOptions.
 * @returns   string
 */
function getInput(name, options) {
    const val = process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '';
    if (options && options.required && !val) {
        throw new Error(`Input required and not supplied: ${name}`);
    }
    if (options && options.trimWhitespace === false) {
        return val;
    }
    return val.trim();
}
/**
 * Gets the values of an multiline input.  Each value is also trimmed.
 *
 * @param     name     name of the input to get
 * @param     options  optional. See InputOptions.
 * @returns   string[]
 *
 */
function getMultilineInput(name, options) {
    const inputs = getInput(name, options)
        .split('\n')
        .filter(x => x !== '');
    if (options && options.trimWhitespace === false) {
        return inputs;
    }
    return inputs.map(input => input.trim());
}
/**
 * Gets the input value of the boolean type in the YAML 1.2 "core schema" specification.
 * Support boolean input list: `true | True | TRUE | false | False | FALSE` .
 * The return value is also in boolean type.
 * ref: https://yaml.org/spec/1.2/spec.html#id2804923
 *
 * @param     name     name of the input to get
 * @param     options  optional. See InputOptions.
 * @returns   boolean
 */
function getBooleanInput(name, options) {
    const trueValue = ['true', 'True', 'TRUE'];
    const falseValue = ['false', 'False', 'FALSE'];
    const val = getInput(name, options);
    if (trueValue.includes(val))
        return true;
    if (falseValue.includes(val))
        return false;
    throw new TypeError(`Input does not meet YAML 1.2 "Core Schema" specification: ${name}\n` +
        `Support boolean input list: \`true | True | TRUE | false | False | FALSE\``);
}
/**
 * Sets the value of an output.
 *
 * @param     name     name of the output to set
 * @param     value    value to store. Non-string values will be converted to a string via JSON.stringify
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function setOutput(name, value) {
    const filePath = process.env['GITHUB_OUTPUT'] || '';
    if (filePath) {
        return file_command_issueFileCommand('OUTPUT', file_command_prepareKeyValueMessage(name, value));
    }
    process.stdout.write(external_os_namespaceObject.EOL);
    command_issueCommand('set-output', { name }, utils_toCommandValue(value));
}
/**
 * Enables or disables the echoing of commands into stdout for the rest of the step.
 * Echoing is disabled by default if ACTIONS_STEP_DEBUG is not set.
 *
 */
function setCommandEcho(enabled) {
    issue('echo', enabled ? 'on' : 'off');
}
//-----------------------------------------------------------------------
// Results
//-----------------------------------------------------------------------
/**
 * Sets the action status to failed.
 * When the action exits it will be with an exit code of 1
 * @param message add error issue message
 */
function setFailed(message) {
    process.exitCode = ExitCode.Failure;
    error(message);
}
//-----------------------------------------------------------------------
// Logging Commands
//-----------------------------------------------------------------------
/**
 * Gets whether Actions Step Debug is on or not
 */
function isDebug() {
    return process.env['RUNNER_DEBUG'] === '1';
}
/**
 * Writes debug message to user log
 * @param message debug message
 */
function core_debug(message) {
    command_issueCommand('debug', {}, message);
}
/**
 * Adds an error issue
 * @param message error issue message. Errors will be converted to string via toString()
 * @param properties optional properties to add to the annotation.
 */
function error(message, properties = {}) {
    command_issueCommand('error', toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
 * Adds a warning issue
 * @param message warning issue message. Errors will be converted to string via toString()
 * @param properties optional properties to add to the annotation.
 */
function warning(message, properties = {}) {
    command_issueCommand('warning', toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
 * Adds a notice issue
 * @param message notice issue message. Errors will be converted to string via toString()
 * @param properties optional properties to add to the annotation.
 */
function notice(message, properties = {}) {
    command_issueCommand('notice', toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
 * Writes info to log with console.log.
 * @param message info message
 */
function info(message) {
    process.stdout.write(message + external_os_namespaceObject.EOL);
}
/**
 * Begin an output group.
 *
 * Output until the next `groupEnd` will be foldable in this group
 *
 * @param name The name of the output group
 */
function startGroup(name) {
    issue('group', name);
}
/**
 * End an output group.
 */
function endGroup() {
    issue('endgroup');
}
/**
 * Wrap an asynchronous function call in a group.
 *
 * Returns the same type as the function itself.
 *
 * @param name The name of the group
 * @param fn The function to wrap in the group
 */
function group(name, fn) {
    return core_awaiter(this, void 0, void 0, function* () {
        startGroup(name);
        let result;
        try {
            result = yield fn();
        }
        finally {
            endGroup();
        }
        return result;
    });
}
//-----------------------------------------------------------------------
// Wrapper action state
//-----------------------------------------------------------------------
/**
 * Saves state for current action, the state can only be retrieved by this action's post job execution.
 *
 * @param     name     name of the state to store
 * @param     value    value to store. Non-string values will be converted to a string via JSON.stringify
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function saveState(name, value) {
    const filePath = process.env['GITHUB_STATE'] || '';
    if (filePath) {
        return file_command_issueFileCommand('STATE', file_command_prepareKeyValueMessage(name, value));
    }
    command_issueCommand('save-state', { name }, utils_toCommandValue(value));
}
/**
 * Gets the value of an state set by this action's main execution.
 *
 * @param     name     name of the state to get
 * @returns   string
 */
function getState(name) {
    return process.env[`STATE_${name}`] || '';
}
function getIDToken(aud) {
    return core_awaiter(this, void 0, void 0, function* () {
        return yield OidcClient.getIDToken(aud);
    });
}
/**
 * Summary exports
 */

/**
 * @deprecated use core.summary
 */

/**
 * Path exports
 */

/**
 * Platform utilities exports
 */

//# sourceMappingURL=core.js.map
;// CONCATENATED MODULE: external "node:os"
const external_node_os_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:os");
;// CONCATENATED MODULE: ./src/runner.ts






function runnerDoor(host) {
    const io = runnerIo(host);
    return { io, inputs: runnerInputs(readRunnerWorld(host.env, host.cwd()), io, host.env) };
}
function readRunnerWorld(env, cwd) {
    return {
        forge: 'github',
        project: env.GITHUB_REPOSITORY || undefined,
        repository: env.GITHUB_REPOSITORY,
        serverUrl: env.GITHUB_SERVER_URL,
        apiUrl: env.GITHUB_API_URL,
        workflow: env.GITHUB_WORKFLOW,
        runId: env.GITHUB_RUN_ID,
        runAttempt: env.GITHUB_RUN_ATTEMPT,
        job: env.GITHUB_JOB,
        action: env.GITHUB_ACTION,
        sha: env.GITHUB_SHA,
        eventName: env.GITHUB_EVENT_NAME,
        event: readEventPayload(env.GITHUB_EVENT_PATH),
        workspace: env.GITHUB_WORKSPACE || cwd,
        runnerTemp: env.RUNNER_TEMP || (0,external_node_os_namespaceObject.tmpdir)(),
    };
}
function readEventPayload(path) {
    if (!path)
        return undefined;
    try {
        const parsed = JSON.parse((0,external_node_fs_namespaceObject.readFileSync)(path, 'utf8'));
        return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
    }
    catch {
        return undefined;
    }
}
const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK'];
function onTerminationSignal(host, handler) {
    for (const signal of TERMINATION_SIGNALS)
        host.on(signal, handler);
    return () => {
        for (const signal of TERMINATION_SIGNALS)
            host.off(signal, handler);
    };
}
function runnerInputs(world, io, env) {
    const get = (name) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
    return { get, mask: (secret) => io.setSecret(secret), world };
}
function runnerIo(host) {
    const { env } = host;
    return {
        debug: (message) => core_debug(message),
        info: (message) => info(message),
        warning: (message) => warning(message),
        error: (message) => error(message),
        notice: (message, properties) => notice(message, properties),
        setOutput: (name, value) => {
            const file = env.GITHUB_OUTPUT;
            if (file)
                keyValueCommand(file, name, value);
            else
                setOutput(name, value);
        },
        setFailed: (message) => setFailed(message),
        appendSummary: (markdown) => appendSummary(env.GITHUB_STEP_SUMMARY, markdown),
        saveState: (name, value) => {
            const file = env.GITHUB_STATE;
            if (file)
                keyValueCommand(file, name, value);
            else
                saveState(name, value);
        },
        getState: (name) => env[`STATE_${name}`] ?? '',
        setSecret: (secret) => core_setSecret(secret),
        onTerminationSignal: (handler) => onTerminationSignal(host, handler),
        exit: (code) => host.exit(code),
        words: WORKFLOW_WORDS,
    };
}
function keyValueCommand(file, name, value) {
    const delimiter = `ghadelimiter_${(0,external_node_crypto_namespaceObject.randomUUID)()}`;
    (0,external_node_fs_namespaceObject.appendFileSync)(file, `${name}<<${delimiter}${external_node_os_namespaceObject.EOL}${value}${external_node_os_namespaceObject.EOL}${delimiter}${external_node_os_namespaceObject.EOL}`, 'utf8');
}
async function appendSummary(file, markdown) {
    if (!file)
        throw new Error('the runner gave the step no job summary file (GITHUB_STEP_SUMMARY)');
    await (0,promises_namespaceObject.appendFile)(file, `${markdown}${external_node_os_namespaceObject.EOL}`, 'utf8');
}

;// CONCATENATED MODULE: ./src/cli/outputs.ts
const JSON_OUTPUTS = new Set([
    'run',
    'runs',
    'artifacts',
    'structured_output',
    'cancelled',
    'report',
    'closed',
    'left',
]);
const NUMBER_OUTPUTS = new Set(['credits', 'cost_usd']);
const BOOLEAN_OUTPUTS = new Set(['steered']);
function outputsAsJson(outputs) {
    const json = {};
    for (const [name, value] of Object.entries(outputs)) {
        if (JSON_OUTPUTS.has(name)) {
            try {
                json[name] = JSON.parse(value);
                continue;
            }
            catch {
            }
        }
        if (BOOLEAN_OUTPUTS.has(name) && (value === 'true' || value === 'false')) {
            json[name] = value === 'true';
            continue;
        }
        const number = Number(value);
        json[name] =
            NUMBER_OUTPUTS.has(name) && value !== '' && Number.isFinite(number) ? number : value;
    }
    return json;
}
const ENTITIES = { lt: '<', gt: '>', amp: '&', quot: '"', nbsp: ' ' };
function plainSummary(markdown) {
    const lines = [];
    let inChart = false;
    for (const raw of markdown.split('\n')) {
        if (inChart || /^\s*```mermaid\s*$/.test(raw)) {
            inChart = !(inChart && /^\s*```\s*$/.test(raw));
            continue;
        }
        if (/^\s*\|?\s*:?-{3,}/.test(raw))
            continue;
        let line = raw
            .replace(/<[^<>]*>/g, '')
            .replace(/&(#\d{1,7}|[a-z]{2,6});/g, (entity, code) => code.startsWith('#')
            ? String.fromCodePoint(Number(code.slice(1)))
            : (ENTITIES[code] ?? entity))
            .replace(/\*\*([^*]*)\*\*/g, '$1')
            .replace(/\[([^\]]*)\]\(<?([^()<>\s]*)>?\)/g, '$1 ($2)')
            .replace(/^#{1,6} /, '');
        if (line.startsWith('|')) {
            const cells = line.split('|').map((cell) => cell.trim());
            line = cells.slice(1, -1).filter(Boolean).join(': ');
        }
        lines.push(line.trimEnd());
    }
    return `${lines
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()}\n`;
}

;// CONCATENATED MODULE: ./src/cli/answer.ts



const EXIT = {
    passed: 0,
    notPassed: 1,
    badInput: 2,
    unreachable: 3,
    timedOut: 124,
    SIGINT: 130,
    SIGTERM: 143,
};
function exitCodeOf(answer) {
    if (answer.signal)
        return EXIT[answer.signal];
    if (answer.error instanceof InputError)
        return EXIT.badInput;
    if (!answer.hadRun && (answer.unreachable || isUnreachableOrRefused(answer.error))) {
        return EXIT.unreachable;
    }
    if (answer.outputs.outcome === 'timed_out')
        return EXIT.timedOut;
    if (answer.failure !== undefined || answer.afterwards !== undefined)
        return EXIT.notPassed;
    return EXIT.passed;
}
function answerJson(answer, exitCode) {
    const error = answer.afterwards ?? answer.failure;
    const interrupted = answer.signal && !answer.outputs.outcome ? 'interrupted' : undefined;
    return {
        ...outputsAsJson(answer.outputs),
        outcome: answer.outputs.outcome || interrupted || (error ? 'error' : 'succeeded'),
        exit_code: exitCode,
        ...(error ? { error } : {}),
    };
}
function refusalJson(error) {
    return { outcome: 'error', exit_code: EXIT.badInput, error };
}

;// CONCATENATED MODULE: ./src/cli/flags.ts
class UsageError extends Error {
    name = 'UsageError';
}
const GITHUB_ONLY_INPUTS = [
    'github_token',
    'comment',
    'continue_run',
    'commenter_permission',
    'allowed_bots',
    'approval',
    'approver_permission',
    'commit_status',
    'pull_request_review',
    'check_run',
];
const KEY_VARIABLE = 'WARP_API_KEY';
const KEY_FILE_VARIABLE = 'WARP_API_KEY_FILE';
const flagOf = (input) => `--${input.replace(/_/g, '-')}`;
function isBooleanInput(input) {
    return input.default === 'true' || input.default === 'false';
}
function parseCommandLine(args, declared) {
    const byFlag = new Map(Object.keys(declared).map((name) => [flagOf(name), name]));
    const inputs = new Map();
    const own = { json: false, help: false, version: false };
    for (let index = 0; index < args.length; index += 1) {
        const arg = args[index] ?? '';
        if (!arg.startsWith('--')) {
            throw new UsageError(`Unexpected argument "${arg}": every value follows its flag.`);
        }
        const equals = arg.indexOf('=');
        const flag = equals < 0 ? arg : arg.slice(0, equals);
        const inline = equals < 0 ? undefined : arg.slice(equals + 1);
        const valueOf = () => {
            if (inline !== undefined)
                return inline;
            const next = args[index + 1];
            if (next === undefined || (next.startsWith('--') && next.length > 2)) {
                throw new UsageError(`${flag} needs a value.`);
            }
            index += 1;
            return next;
        };
        if (flag === '--api-key') {
            throw new UsageError(`The key is never a flag (it would show in the shell's history and the process list): set ${KEY_VARIABLE}.`);
        }
        switch (flag) {
            case '--json':
            case '--help':
            case '--version':
                if (inline !== undefined)
                    throw new UsageError(`${flag} takes no value.`);
                own[flag.slice(2)] = true;
                continue;
            case '--summary':
                own.summary = valueOf();
                continue;
            case '--tasks-file':
                own.tasks = valueOf();
                continue;
            case '--project':
                own.project = valueOf().trim();
                if (!/^(?:(?:github|gitlab):)?[\w.-]+(?:\/[\w.-]+)*$/.test(own.project)) {
                    throw new UsageError(`--project names a project as a path such as group/app, or with its forge, github:owner/repo or gitlab:group/app; got "${own.project}".`);
                }
                continue;
        }
        const negated = flag.startsWith('--no-') ? byFlag.get(`--${flag.slice(5)}`) : undefined;
        if (negated !== undefined && isBooleanInput(declared[negated] ?? {})) {
            if (inline !== undefined)
                throw new UsageError(`${flag} takes no value.`);
            inputs.set(negated, 'false');
            continue;
        }
        const name = byFlag.get(flag);
        if (name === undefined) {
            throw new UsageError(`Unknown flag ${flag}; \`cloud-agent-run --help\` lists them.`);
        }
        if (isBooleanInput(declared[name] ?? {})) {
            const next = args[index + 1];
            const value = inline ?? (next === 'true' || next === 'false' ? next : 'true');
            if (inline === undefined && value === next)
                index += 1;
            inputs.set(name, value);
            continue;
        }
        inputs.set(name, valueOf());
    }
    if (own.tasks !== undefined && inputs.has('tasks')) {
        throw new UsageError('Give --tasks or --tasks-file, not both.');
    }
    return {
        inputs,
        json: own.json,
        help: own.help,
        version: own.version,
        ...(own.summary !== undefined ? { summaryFile: own.summary } : {}),
        ...(own.tasks !== undefined ? { tasksFile: own.tasks } : {}),
        ...(own.project !== undefined ? { project: own.project } : {}),
    };
}
function githubOnlyGiven(inputs) {
    return GITHUB_ONLY_INPUTS.filter((name) => {
        const value = inputs.get(name);
        return value !== undefined && value !== '' && value !== 'false';
    });
}
function usage(declared) {
    const lines = [
        'Usage: cloud-agent-run [flags]',
        '       cloud-agent-run report|reconcile|cleanup [flags]',
        '       cloud-agent-run campaign status|cancel|close NAME [flags]',
        '',
        `Starts a cloud agent run on Warp's Oz platform, waits for it and reports it. The key is read`,
        `from ${KEY_VARIABLE}, else from the file ${KEY_FILE_VARIABLE} names.`,
        '',
        'Subcommands (each has its own --help):',
        "  report      what the runs did and cost in a period, from the service's own records",
        "  reconcile   one pass over a GitLab project's runs: finish notes, cancel a lost job's runs",
        '  cleanup     cancel what a killed command left going (reads CLOUD_AGENT_RUN_DIR)',
        "  campaign    a campaign's status, cancel and close, by its name",
        '',
        'Exit codes: 0 passed; 1 did not pass; 2 bad input (nothing created); 3 the service could',
        'not be reached or refused the key (nothing left running); 124 the timeout passed (runs',
        'cancelled); 130/143 interrupted by SIGINT/SIGTERM (every run it made cancelled).',
        '',
        'Own flags:',
        '  --json               one JSON object on stdout on every exit: the outputs, outcome,',
        '                       exit_code and error; the log on stderr',
        '  --summary FILE       write the summary (Markdown) to FILE',
        '  --tasks-file FILE    the tasks list (YAML or JSON), from FILE',
        PROJECT_HELP,
        '  --help, --version',
        '',
        'Inputs (as in action.yml):',
        ...inputLines(declared),
    ];
    return `${lines.join('\n')}\n`;
}
const PROJECT_HELP = [
    '  --project NAME       the project the runs belong to (budgets, --previous-run and the',
    '                       report count by it): a path (owner/repo, group/app), or with its',
    '                       forge, github:owner/repo or gitlab:group/app; a bare path counts',
    "                       every forge's runs of it. On GitHub and GitLab, the CI's own project",
].join('\n');
function inputLines(declared) {
    const lines = [];
    for (const [name, input] of Object.entries(declared)) {
        if (name === 'api_key' || name === 'tasks_file')
            continue;
        const flag = isBooleanInput(input)
            ? `${flagOf(name)}, --no-${name.replace(/_/g, '-')}`
            : flagOf(name);
        const fallback = typeof input.default === 'string' && input.default !== '' ? input.default : '';
        const githubOnly = GITHUB_ONLY_INPUTS.includes(name);
        const note = githubOnly ? ' (GitHub Actions only)' : fallback ? ` (default: ${fallback})` : '';
        lines.push(`  ${flag}${note}`);
        const description = (input.description ?? '').replace(/\s+/g, ' ').trim();
        for (const line of wrap(description, HELP_WIDTH))
            lines.push(`      ${line}`);
    }
    return lines;
}
const HELP_WIDTH = 94;
function wrap(text, width) {
    const lines = [];
    let line = '';
    for (const word of text.split(' ')) {
        if (!word)
            continue;
        if (line && line.length + 1 + word.length > width) {
            lines.push(line);
            line = word;
        }
        else {
            line = line ? `${line} ${word}` : word;
        }
    }
    if (line)
        lines.push(line);
    return lines;
}

;// CONCATENATED MODULE: ./src/cli/manifest.ts

async function readDeclaredInputs(action) {
    if (action.pathname.endsWith('.json')) {
        return JSON.parse((0,external_node_fs_namespaceObject.readFileSync)(action, 'utf8'));
    }
    const { parse } = await __nccwpck_require__.e(/* import() */ 815).then(__nccwpck_require__.t.bind(__nccwpck_require__, 8815, 19));
    const inputsOf = (url) => parse((0,external_node_fs_namespaceObject.readFileSync)(url, 'utf8')).inputs ?? {};
    return {
        inputs: inputsOf(action),
        report: inputsOf(new URL('report/action.yml', action)),
        version: packageVersion(action),
    };
}
function packageVersion(actionYml) {
    try {
        const manifest = JSON.parse((0,external_node_fs_namespaceObject.readFileSync)(new URL('package.json', actionYml), 'utf8'));
        return typeof manifest.version === 'string' ? manifest.version : 'unknown';
    }
    catch {
        return 'unknown';
    }
}

;// CONCATENATED MODULE: ./src/cli/job-files.ts




const JOB_DIR_VARIABLE = 'CLOUD_AGENT_RUN_DIR';
function jobDirOf(env, cwd) {
    const dir = env[JOB_DIR_VARIABLE]?.trim();
    return dir ? (0,external_node_path_namespaceObject.resolve)(cwd, dir) : undefined;
}
class JobFiles {
    #dir;
    #facts;
    #say;
    #failed = false;
    constructor(dir, facts, say) {
        this.#dir = dir;
        this.#facts = facts;
        this.#say = say;
    }
    saveState(state) {
        const saved = { ...this.#facts, state: Object.fromEntries(state) };
        this.#write('state.json', `${JSON.stringify(saved)}\n`, true);
    }
    cleaned() {
        try {
            (0,external_node_fs_namespaceObject.renameSync)((0,external_node_path_namespaceObject.join)(this.#dir, 'state.json'), (0,external_node_path_namespaceObject.join)(this.#dir, 'state.cleaned.json'));
        }
        catch {
        }
    }
    finish(outputs) {
        this.#write('outputs.env', dotenv(outputs));
        const link = safeHttpUrl(outputs.session_link);
        const annotations = link
            ? { 'cloud-agent-run': [{ external_link: { label: 'Cloud agent session', url: link } }] }
            : { 'cloud-agent-run': [] };
        this.#write('annotations.json', `${JSON.stringify(annotations)}\n`);
    }
    #write(name, text, atomic = false) {
        try {
            (0,external_node_fs_namespaceObject.mkdirSync)(this.#dir, { recursive: true });
            const path = (0,external_node_path_namespaceObject.join)(this.#dir, name);
            if (!atomic)
                return (0,external_node_fs_namespaceObject.writeFileSync)(path, text);
            (0,external_node_fs_namespaceObject.writeFileSync)(`${path}.tmp`, text);
            (0,external_node_fs_namespaceObject.renameSync)(`${path}.tmp`, path);
        }
        catch (error) {
            if (this.#failed)
                return;
            this.#failed = true;
            this.#say(`warning: ${JOB_DIR_VARIABLE}: ${name} could not be written in ${this.#dir} (${errorMessage(error)}); the run is not affected.\n`);
        }
    }
}
const DOTENV_VALUE_CHARS = 1_000;
function dotenv(outputs) {
    const lines = [];
    for (const [name, value] of Object.entries(outputs)) {
        if (/[\r\n]/.test(value) || value.length > DOTENV_VALUE_CHARS)
            continue;
        lines.push(`CLOUD_AGENT_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}=${value}`);
    }
    return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

;// CONCATENATED MODULE: ./src/cli/key.ts




function readKey(env, cwd) {
    const key = env[KEY_VARIABLE]?.trim();
    if (key)
        return key;
    const file = env[KEY_FILE_VARIABLE]?.trim();
    if (!file) {
        throw new UsageError(`${KEY_VARIABLE} is not set: export the Warp API key in it, or name a file holding it in ${KEY_FILE_VARIABLE} (a flag would show in the process list).`);
    }
    const fromFile = readText(cwd, file, KEY_FILE_VARIABLE).trim();
    if (!fromFile)
        throw new UsageError(`${KEY_FILE_VARIABLE} names an empty file.`);
    return fromFile;
}
function readText(cwd, path, what) {
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)((0,external_node_path_namespaceObject.resolve)(cwd, path), 'utf8');
    }
    catch (error) {
        throw new UsageError(`${what} cannot be read: ${errorMessage(error)}`);
    }
}

;// CONCATENATED MODULE: ./src/gitlab/api.ts



const FINISHED_JOB = new Set(['success', 'failed', 'canceled', 'skipped']);
function jobFinished(status) {
    return FINISHED_JOB.has(status);
}
function projectSegment(project) {
    return encodeURIComponent(project);
}
class GitLabApi {
    #access;
    #options;
    constructor(access, options = {}) {
        this.#access = access;
        this.#options = options;
    }
    async job(project, jobId) {
        const { json } = await this.call('GET', `/projects/${projectSegment(project)}/jobs/${jobId}`);
        const job = json;
        const status = job?.status;
        if (typeof status !== 'string')
            throw new GitLabFailure(`job ${jobId} came back with no status`);
        const pipeline = job?.pipeline?.id;
        return {
            status,
            pipeline: typeof pipeline === 'number' && Number.isSafeInteger(pipeline) && pipeline > 0
                ? pipeline
                : undefined,
        };
    }
    async mergeRequestPipelines(project, iid) {
        const { json } = await this.call('GET', `/projects/${projectSegment(project)}/merge_requests/${iid}/pipelines?per_page=20`);
        if (!Array.isArray(json))
            return [];
        return json.flatMap((pipeline) => typeof pipeline.id === 'number'
            ? [
                {
                    id: pipeline.id,
                    sha: String(pipeline.sha ?? ''),
                    status: String(pipeline.status ?? ''),
                },
            ]
            : []);
    }
    async mergeBase(project, a, b) {
        const query = `refs[]=${encodeURIComponent(a)}&refs[]=${encodeURIComponent(b)}`;
        const { json } = await this.call('GET', `/projects/${projectSegment(project)}/repository/merge_base?${query}`);
        const id = json?.id;
        return typeof id === 'string' ? id : undefined;
    }
    async compare(project, from, to) {
        const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&straight=true`;
        const { json } = await this.call('GET', `/projects/${projectSegment(project)}/repository/compare?${query}`);
        const commits = json?.commits;
        if (!Array.isArray(commits))
            return [];
        return commits.flatMap((commit) => typeof commit.id === 'string'
            ? [{ id: commit.id, title: typeof commit.title === 'string' ? commit.title : '' }]
            : []);
    }
    async call(method, path, payload) {
        const deadlineMs = this.#options.callDeadlineMs ?? timing/* GITLAB_LIMITS */.Xy.callMs;
        const signal = AbortSignal.timeout(deadlineMs);
        const pauses = [...timing/* GITLAB_LIMITS */.Xy.transientPausesMs];
        const fetcher = this.#options.fetch ?? fetch;
        for (;;) {
            let failure;
            try {
                const response = await fetcher(`${this.#access.apiUrl}${path}`, {
                    method,
                    headers: {
                        'private-token': this.#access.token,
                        accept: 'application/json',
                        'user-agent': USER_AGENT,
                        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
                    },
                    body: payload === undefined ? undefined : JSON.stringify(payload),
                    redirect: 'manual',
                    signal,
                });
                const text = await response.text();
                if (response.ok)
                    return { json: api_parseJson(text), headers: response.headers };
                failure = refusal(method, path, response.status, text, response.headers);
                if (response.status < 500)
                    throw failure;
            }
            catch (error) {
                if (error instanceof GitLabFailure)
                    throw error;
                if (signal.aborted) {
                    throw new GitLabFailure(`${method} ${path} had no answer within ${seconds(deadlineMs)}`);
                }
                failure = new GitLabFailure(`${method} ${path} failed: ${causeOf(error)}`);
            }
            const pause = pauses.shift();
            if (pause === undefined)
                throw failure;
            if (!(await pauseUnlessAborted(pause, signal)))
                throw failure;
        }
    }
}
class GitLabFailure extends Error {
    status;
    constructor(message, status) {
        super(message);
        this.name = 'GitLabFailure';
        this.status = status;
    }
}
function gitlabReason(error) {
    return safeForLog(error instanceof GitLabFailure ? error.message : causeOf(error), 300);
}
function refusal(method, path, status, text, headers) {
    if (status >= 300 && status < 400) {
        const location = safeForLog(headers.get('location') ?? '', 200);
        return new GitLabFailure(`${method} ${path} answered ${status} with a redirect to ${location}, which is not followed so the token stays with CI_API_V4_URL`, status);
    }
    const message = api_parseJson(text) ?? {};
    const said = message.message ?? message.error;
    const words = typeof said === 'string' ? said : said === undefined ? '' : JSON.stringify(said);
    const shown = words.startsWith(String(status)) ? words : `${status} ${words}`.trim();
    return new GitLabFailure(`${method} ${path} \u2192 ${safeForLog(shown, 200)}`, status);
}
function api_parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
function causeOf(error) {
    const cause = error?.cause;
    const code = typeof cause?.code === 'string' ? cause.code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    return code ? `${message} (${code})` : message;
}
function seconds(ms) {
    return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
function pauseUnlessAborted(ms, signal) {
    if (signal.aborted)
        return Promise.resolve(false);
    return new Promise((resolve) => {
        const timer = setTimeout(() => {
            signal.removeEventListener('abort', onAbort);
            resolve(true);
        }, ms);
        const onAbort = () => {
            clearTimeout(timer);
            resolve(false);
        };
        signal.addEventListener('abort', onAbort, { once: true });
    });
}

;// CONCATENATED MODULE: ./src/gitlab/note-text.ts


const GITLAB_NOTE_MAX_CHARS = 1_000_000;
const MARKER_PREFIX = '<!-- cloud-agent-run-note: ';
const note_text_MARKER = /^<!-- cloud-agent-run-note: (\{[^<>\n]*\}) -->/;
function noteBody(key, markdown, record = {}, history = { runs: [], sets: [] }) {
    const json = inertJson({
        key,
        ...record,
        ...(history.runs.length > 0 ? { runs: history.runs.map(runJson) } : {}),
        ...(history.sets.length > 0 ? { sets: history.sets.map(setJson) } : {}),
    });
    const marker = `${MARKER_PREFIX}${json} -->`;
    const setId = setIdOf(record);
    const earlier = historyBlock({
        runs: history.runs.filter((run) => run.runId !== record.run),
        sets: history.sets.filter((set) => set.set !== setId),
    }, 'CI job');
    const after = earlier ? `\n\n${earlier}` : '';
    const room = GITLAB_NOTE_MAX_CHARS - marker.length - after.length - note_text_CUT_NOTE.length - 2;
    const text = withoutQuickActions(markdown);
    return `${marker}\n${text.length > room ? `${cut(text, room)}${note_text_CUT_NOTE}` : text}${after}`;
}
function setIdOf(record) {
    return `job ${record.job ?? ''}`.slice(0, 100);
}
const note_text_CUT_NOTE = '\n\n\u2026 (cut at GitLab\u2019s limit for a note)';
function markerKey(body) {
    return note_text_markerOf(body)?.key;
}
function note_text_markerOf(body) {
    const marker = noteMarkerOf(body);
    return marker && { key: marker.key, record: marker.record };
}
function noteMarkerOf(body) {
    const parsed = markerJson(body, note_text_MARKER);
    if (!parsed || typeof parsed.key !== 'string')
        return undefined;
    const text = (value) => (typeof value === 'string' && value ? value : undefined);
    const record = {
        ...(text(parsed.run) ? { run: text(parsed.run) } : {}),
        ...(text(parsed.head) ? { head: text(parsed.head) } : {}),
        ...(text(parsed.job) ? { job: text(parsed.job) } : {}),
        ...(parsed.ended === true ? { ended: true } : {}),
    };
    return {
        key: parsed.key,
        record,
        history: { runs: parseRuns(parsed.runs), sets: parseSets(parsed.sets) },
    };
}
function withoutQuickActions(markdown) {
    return markdown.replace(/\r\n?/g, '\n').replace(/^\//gm, ' /');
}

;// CONCATENATED MODULE: ./src/gitlab/note.ts




function mergeRequestFrom(env) {
    const iidText = env.CI_MERGE_REQUEST_IID?.trim() ?? '';
    if (iidText === '')
        return undefined;
    const projectId = env.CI_PROJECT_ID?.trim() ?? '';
    const projectPath = env.CI_PROJECT_PATH?.trim() || undefined;
    const iid = /^[1-9]\d{0,15}$/.test(iidText) ? Number(iidText) : undefined;
    const where = `${projectPath ?? `project ${projectId}`}!${iidText}`;
    const apiUrl = apiRoot(env.CI_API_V4_URL);
    if (iid === undefined || projectId === '' || apiUrl === undefined) {
        const why = `CI_MERGE_REQUEST_IID "${iidText}", CI_PROJECT_ID "${projectId}", CI_API_V4_URL "${env.CI_API_V4_URL ?? ''}"`;
        return {
            reason: `GitLab: no note on the merge request: GitLab CI's variables do not name one (${safeForLog(why, 300)}).`,
        };
    }
    const token = env.GITLAB_TOKEN?.trim() ?? '';
    if (token === '') {
        return {
            reason: `GitLab: no note on ${safeForLog(where)}: GITLAB_TOKEN is not set. A masked CI/CD variable GITLAB_TOKEN (a token with the api scope) lets the command keep one note there.`,
        };
    }
    if (/[\s\u0000-\u001f\u007f]/.test(token)) {
        return {
            reason: `GitLab: no note on ${safeForLog(where)}: GITLAB_TOKEN contains whitespace or control characters; check the variable.`,
        };
    }
    return { target: { apiUrl, projectId, mergeRequestIid: iid, projectPath, token } };
}
function apiRoot(value) {
    const text = value?.trim() ?? '';
    let url;
    try {
        url = new URL(text);
    }
    catch {
        return undefined;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
        return undefined;
    if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
        return undefined;
    return url.href.replace(/\/+$/, '');
}
class MergeRequestNote {
    #target;
    #options;
    #api;
    #noteId;
    #me;
    #history = { runs: [], sets: [] };
    #startedAt;
    #refused = false;
    #failing = false;
    #queue = Promise.resolve();
    constructor(target, options) {
        this.#target = target;
        this.#options = options;
        this.#api = new GitLabApi(target, options);
        this.#startedAt = new Date((options.now ?? Date.now)()).toISOString();
    }
    upsert(markdown, record = {}, entry) {
        const written = this.#queue.then(() => this.#upsertOnce(markdown, record, entry));
        this.#queue = written.then(() => undefined);
        return written;
    }
    recorded() {
        const read = this.#queue.then(async () => {
            if (this.#refused)
                return undefined;
            try {
                return (await this.#ours()).find((note) => note.key === this.#options.key)?.record;
            }
            catch {
                return undefined;
            }
        });
        this.#queue = read.then(() => undefined);
        return read;
    }
    static async ofRun(target, runId, options) {
        const reader = new MergeRequestNote(target, { ...options, key: '' });
        const found = (await reader.#ours()).find((note) => note.record.run === runId);
        if (!found)
            return undefined;
        const note = new MergeRequestNote(target, { ...options, key: found.key });
        note.#noteId = found.id;
        note.#me = reader.#me;
        note.#history = found.history;
        return { note, record: found.record };
    }
    async #upsertOnce(markdown, record, entry) {
        if (this.#refused)
            return false;
        try {
            if (this.#noteId === undefined || entry)
                await this.#read();
            if (entry)
                this.#history = this.#withEntry(entry, record);
            const body = noteBody(this.#options.key, markdown, record, this.#history);
            if (this.#noteId !== undefined && (await this.#update(this.#noteId, body))) {
                this.#succeeded();
                return true;
            }
            const created = await this.#create(body);
            this.#noteId = await this.#oldestAfterCreate(created, body);
            this.#succeeded();
            return true;
        }
        catch (error) {
            this.#failed(error);
            return false;
        }
    }
    async #oldestAfterCreate(created, body) {
        const oldest = await this.#find();
        if (oldest === undefined || oldest >= created)
            return created;
        await this.#call('DELETE', `${this.#notesPath()}/${created}`).catch(() => undefined);
        return (await this.#update(oldest, body)) ? oldest : created;
    }
    async #find() {
        return (await this.#ours()).find((note) => note.key === this.#options.key)?.id;
    }
    async #read() {
        const found = (await this.#ours()).find((note) => note.key === this.#options.key);
        if (!found)
            return;
        this.#noteId ??= found.id;
        this.#history = found.history;
    }
    #withEntry(entry, record) {
        const { runs, sets } = this.#history;
        const shown = { startedAt: this.#startedAt, workflowRun: this.#options.jobUrl };
        if (entry.run) {
            const earlier = runs.find((one) => one.runId === entry.run.runId);
            const workflowRun = shown.workflowRun ?? earlier?.workflowRun;
            return { runs: mergeRuns(runs, { ...entry.run, ...shown, workflowRun }), sets };
        }
        return { runs, sets: mergeSets(sets, { ...entry.set, ...shown, set: setIdOf(record) }) };
    }
    async #ours() {
        const me = await this.#whoAmI();
        const found = [];
        let page = 1;
        for (let read = 0; read < GITLAB_NOTE_PAGES; read++) {
            const answer = await this.#call('GET', `${this.#notesPath()}?per_page=100&page=${page}&sort=asc&order_by=created_at`);
            const notes = Array.isArray(answer.json) ? answer.json : [];
            for (const note of notes) {
                if (note.system || note.author?.id !== me)
                    continue;
                const marker = noteMarkerOf(note.body ?? '');
                if (marker)
                    found.push({ id: note.id, ...marker });
            }
            const next = Number(answer.headers.get('x-next-page') ?? '');
            if (!Number.isInteger(next) || next <= page)
                break;
            page = next;
        }
        return found.sort((a, b) => a.id - b.id);
    }
    async #whoAmI() {
        if (this.#me !== undefined)
            return this.#me;
        const { json } = await this.#call('GET', '/user');
        const id = json?.id;
        if (typeof id !== 'number')
            throw new GitLabFailure('GET /user answered no user ID');
        this.#me = id;
        return id;
    }
    async #update(noteId, body) {
        try {
            await this.#call('PUT', `${this.#notesPath()}/${noteId}`, { body });
            return true;
        }
        catch (error) {
            if (error instanceof GitLabFailure && error.status === 404)
                return false;
            throw error;
        }
    }
    async #create(body) {
        const { json } = await this.#call('POST', this.#notesPath(), { body });
        const id = json?.id;
        if (typeof id !== 'number')
            throw new GitLabFailure('the new note came back without an ID');
        return id;
    }
    #notesPath() {
        const { projectId, mergeRequestIid } = this.#target;
        return `/projects/${encodeURIComponent(projectId)}/merge_requests/${mergeRequestIid}/notes`;
    }
    #call(method, path, payload) {
        return this.#api.call(method, path, payload);
    }
    #succeeded() {
        if (this.#failing)
            this.#options.log.info(`GitLab: the note on ${this.#where()} is written again.`);
        this.#failing = false;
    }
    #failed(error) {
        const status = error instanceof GitLabFailure ? error.status : undefined;
        if (status === 401 || status === 403)
            this.#refused = true;
        if (this.#failing && !this.#refused)
            return;
        this.#failing = true;
        const where = this.#where();
        const why = gitlabReason(error);
        const log = this.#options.log;
        if (status === 401) {
            log.warning(`GitLab: could not write the note on ${where} (${why}). GITLAB_TOKEN is wrong, expired or revoked; no more notes are written. The run is not affected.`);
        }
        else if (status === 403) {
            log.warning(`GitLab: could not write the note on ${where} (${why}). GITLAB_TOKEN needs the api scope and a role that may comment on the merge request; no more notes are written. The run is not affected.`);
        }
        else {
            log.warning(`GitLab: could not write the note on ${where} (${why}). The run is not affected.`);
        }
    }
    #where() {
        const { projectPath, projectId, mergeRequestIid } = this.#target;
        return safeForLog(`${projectPath ?? `project ${projectId}`}!${mergeRequestIid}`);
    }
}
const GITLAB_NOTE_PAGES = 50;

;// CONCATENATED MODULE: ./src/gitlab/steer.ts

const steer_COMMITS_LISTED = 250;
function mergeRequestSteering(options) {
    return {
        source: {
            head: options.head,
            recordedHead: async (runId) => {
                const record = await options.recorded();
                return record?.run === runId ? record.head : undefined;
            },
            compare: (base, head) => compareOnGitLab(options, base, head),
        },
        newerStep: (deadline) => newerPipeline(options, deadline),
    };
}
async function compareOnGitLab(options, base, head) {
    if (base === head)
        return { kind: 'identical' };
    try {
        const mergeBase = await options.api.mergeBase(options.project, base, head);
        if (mergeBase !== base)
            return { kind: 'not-ancestor' };
        const commits = await options.api.compare(options.project, base, head);
        return {
            kind: 'ahead',
            commits: commits.slice(0, steer_COMMITS_LISTED).map((commit) => ({
                sha: commit.id,
                title: commit.title.trim(),
            })),
        };
    }
    catch (error) {
        if (error instanceof GitLabFailure && error.status === 404)
            return { kind: 'not-ancestor' };
        return { kind: 'unknown', why: `GitLab's compare failed: ${gitlabReason(error)}` };
    }
}
async function newerPipeline(options, deadline) {
    const own = Number(options.pipeline);
    if (!Number.isSafeInteger(own) || own <= 0)
        return undefined;
    const listed = await Promise.race([
        options.api.mergeRequestPipelines(options.project, options.mergeRequest),
        new Promise((_, reject) => setTimeout(() => reject(new Error('GitLab did not list the pipelines in time')), Math.max(0, deadline - Date.now())).unref()),
    ]);
    const newer = listed.find((pipeline) => pipeline.id > own && !jobFinished(pipeline.status));
    return newer
        ? `a newer pipeline of the merge request, ${newer.id}, is ${newer.status}`
        : undefined;
}

;// CONCATENATED MODULE: ./src/cli/merge-request.ts






const SIGNALLED_NOTE_MS = 2_000;
class MergeRequestJob {
    #note;
    #env;
    #job;
    #say;
    steering;
    constructor(note, env, steering, say) {
        this.#say = say;
        this.#note = note;
        this.#env = env;
        this.#job = { head: env.CI_COMMIT_SHA || undefined, job: env.CI_JOB_ID || undefined };
        this.steering = steering;
    }
    static open(env, options) {
        const found = mergeRequestFrom(env);
        if (!found)
            return undefined;
        if (found.reason !== undefined) {
            options.say(`${found.reason}\n`);
            return undefined;
        }
        const key = options.key || env.CI_JOB_NAME || 'cloud-agent-run';
        const log = {
            info: (message) => options.say(`${message}\n`),
            warning: (message) => options.say(`warning: ${message}\n`),
        };
        const jobUrl = safeHttpUrl(env.CI_JOB_URL);
        const note = new MergeRequestNote(found.target, { key, log, ...(jobUrl ? { jobUrl } : {}) });
        const before = options.steer ? note.recorded() : undefined;
        const steering = before &&
            mergeRequestSteering({
                api: new GitLabApi(found.target),
                project: found.target.projectId,
                mergeRequest: found.target.mergeRequestIid,
                head: env.CI_COMMIT_SHA || undefined,
                pipeline: env.CI_PIPELINE_ID || undefined,
                recorded: () => before,
            });
        return new MergeRequestJob(note, env, steering, options.say);
    }
    started() {
        void this.#note.upsert(this.#working(), this.#job);
    }
    runSeen(runId) {
        void this.#note.upsert(this.#working(), { ...this.#job, run: runId });
    }
    async finish(summary, outputs, signalled) {
        if (outputs.outcome === 'superseded')
            return;
        const now = signalled ? undefined : await this.#note.recorded();
        if (now?.job && this.#job.job && Number(now.job) > Number(this.#job.job)) {
            this.#say(`GitLab: the note now belongs to job ${now.job}, which steers the run; it writes the end.\n`);
            return;
        }
        const written = this.#note.upsert(`${summary.trim()}\n\n${this.#link()}`, {
            ...this.#job,
            ...(outputs.run_id ? { run: outputs.run_id } : {}),
            ...(outputs.outcome && outputs.outcome !== 'started' ? { ended: true } : {}),
        }, entryOf(outputs));
        if (!signalled) {
            await written;
            return;
        }
        let timer;
        await Promise.race([
            written,
            new Promise((resolve) => (timer = setTimeout(resolve, SIGNALLED_NOTE_MS).unref())),
        ]);
        clearTimeout(timer);
    }
    #working() {
        return `### \u23f3 Cloud agent run: working\n\n${this.#link()}`;
    }
    #link() {
        const url = safeHttpUrl(this.#env.CI_JOB_URL);
        return url ? `[CI job](${url})` : '';
    }
}
function entryOf(outputs) {
    const outcome = OUTCOMES.includes(outputs.outcome ?? '')
        ? outputs.outcome
        : undefined;
    if (outputs.run_id) {
        const sessionLink = safeHttpUrl(outputs.session_link);
        const run = { runId: outputs.run_id, state: outputs.state || 'QUEUED', outcome };
        return { run: sessionLink ? { ...run, sessionLink } : run };
    }
    if (!outputs.runs)
        return undefined;
    let tasks;
    try {
        tasks = JSON.parse(outputs.runs);
    }
    catch {
        return undefined;
    }
    if (!Array.isArray(tasks))
        return undefined;
    const ended = tasks.filter((task) => {
        const state = task?.state;
        return typeof state === 'string' && isTerminal(state);
    });
    return { set: { outcome, done: ended.length, total: tasks.length } };
}

;// CONCATENATED MODULE: ./src/cli/step-io.ts



class CommandStepIo {
    outputs = {};
    words = COMMAND_WORDS;
    summary = '';
    failed = false;
    failure;
    #state = new Map();
    #secrets;
    #write;
    #host;
    #onExit;
    #onOutput;
    #onState;
    #speech;
    constructor(write, secrets, host, onExit, options = {}) {
        this.#speech = options.speech ?? ((text) => text);
        this.#onOutput = options.onOutput;
        this.#onState = options.onState;
        this.#write = write;
        this.#secrets = secrets;
        this.#host = host;
        this.#onExit = onExit;
    }
    debug = () => {
    };
    info = (message) => {
        this.#line(message);
    };
    warning = (message) => {
        this.#line(`warning: ${message}`);
    };
    error = (message) => {
        this.#line(`error: ${message}`);
    };
    notice = (message) => {
        this.#line(`notice: ${message}`);
    };
    setOutput = (name, value) => {
        this.outputs[name] = value;
        this.#onOutput?.(name, value);
    };
    setFailed = (message) => {
        this.failed = true;
        this.failure ??= this.#speech(message);
        this.error(message);
    };
    appendSummary = async (markdown) => {
        this.summary += `${this.#speech(markdown)}${external_node_os_namespaceObject.EOL}`;
    };
    saveState = (name, value) => {
        this.#state.set(name, value);
        this.#onState?.(this.#state);
    };
    restoreState(state) {
        for (const [name, value] of Object.entries(state))
            this.#state.set(name, value);
    }
    getState = (name) => {
        return this.#state.get(name) ?? '';
    };
    setSecret = (secret) => {
        this.#secrets.add(secret);
    };
    onTerminationSignal = (handler) => {
        return onTerminationSignal(this.#host, handler);
    };
    exit = (code) => {
        this.#onExit(code);
    };
    #line(text) {
        let shown = this.#speech(text);
        for (const secret of this.#secrets)
            if (secret)
                shown = shown.split(secret).join('***');
        this.#write(`${shown}\n`);
    }
}

;// CONCATENATED MODULE: ./src/cli/world.ts



function commandWorld(env, cwd, named) {
    const { project, forge: projectForge } = projectNamed(named);
    const onGitHub = env.GITHUB_ACTIONS === 'true';
    const runner = readRunnerWorld(onGitHub ? env : {}, cwd);
    const outside = {
        runnerTemp: (0,external_node_os_namespaceObject.tmpdir)(),
        workspace: onGitHub && env.GITHUB_WORKSPACE ? env.GITHUB_WORKSPACE : cwd,
        apiUrl: env.GITHUB_API_URL || undefined,
    };
    if (onGitHub) {
        return { ...runner, ...outside, project: project ?? runner.project };
    }
    if (env.GITLAB_CI === 'true') {
        const iid = env.CI_MERGE_REQUEST_IID ?? '';
        const jobDir = jobDirOf(env, cwd);
        return {
            ...runner,
            ...outside,
            ...(jobDir ? { runnerTemp: jobDir } : {}),
            forge: 'gitlab',
            project: project ?? (env.CI_PROJECT_PATH || undefined),
            serverUrl: env.CI_SERVER_URL || undefined,
            ...(/^[1-9]\d{0,15}$/.test(iid) ? { thread: Number(iid) } : {}),
            runId: env.CI_PIPELINE_ID || undefined,
            workflow: 'cloud-agent-run',
            job: env.CI_JOB_NAME || 'job',
            action: env.CI_JOB_ID || undefined,
            sha: env.CI_COMMIT_SHA || undefined,
        };
    }
    return {
        ...runner,
        ...outside,
        forge: undefined,
        project,
        ...(projectForge ? { projectForge } : {}),
        workflow: 'cloud-agent-run',
        job: env.CI_JOB_NAME ?? 'command',
    };
}
function projectNamed(named) {
    const match = /^(github|gitlab):(.+)$/.exec(named ?? '');
    if (!match)
        return { project: named, forge: undefined };
    return { project: match[2], forge: match[1] === 'gitlab' ? 'gitlab' : 'github' };
}

;// CONCATENATED MODULE: ./src/cli/cleanup.ts












const HAND_OVER_ASK_MS = 10_000;
const HELP = `Usage: cloud-agent-run cleanup

Cancels every run a cloud-agent-run command started and left going: the command cancels its
runs itself on SIGINT or SIGTERM, but a hard kill (SIGKILL, a removed container, a runner lost)
gives it no time. Give the command a folder in ${JOB_DIR_VARIABLE}: it saves there what it
starts (state.json); run cleanup afterwards with the same ${JOB_DIR_VARIABLE} and
${KEY_VARIABLE} (or ${KEY_FILE_VARIABLE}), whatever ended the command: GitLab's
after_script, a Jenkins pipeline's post { always }, a shell's trap. It finds a create never
answered by its tag, and hands a steered run over to a newer pipeline rather than cancel it.

Exit codes: 0 nothing is left going (or nothing was saved); 1 a run could not be cancelled;
2 ${JOB_DIR_VARIABLE} or the key is missing, or an argument was given.

  --help      this text
`;
async function runCleanup(args, io) {
    if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
        io.stdout(HELP);
        return EXIT.passed;
    }
    const say = (line) => io.stderr(`cloud-agent-run cleanup: ${line}\n`);
    let key;
    let saved;
    let dir;
    try {
        if (args.length > 0) {
            throw new UsageError(`cleanup takes no arguments; it reads ${JOB_DIR_VARIABLE}.`);
        }
        dir = jobDirOf(io.env, io.cwd);
        if (!dir) {
            throw new UsageError(`${JOB_DIR_VARIABLE} is not set: it names the folder where the job's command saved what it started.`);
        }
        saved = readSaved((0,external_node_path_namespaceObject.join)(dir, 'state.json'));
        if (!saved) {
            say('the job saved no run: nothing to clean up.');
            return EXIT.passed;
        }
        key = readKey(io.env, io.cwd);
    }
    catch (error) {
        if (!(error instanceof UsageError))
            throw error;
        say(error.message);
        return EXIT.badInput;
    }
    const secrets = new Set([key]);
    if (io.env.GITLAB_TOKEN)
        secrets.add(io.env.GITLAB_TOKEN.trim());
    const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined);
    port.restoreState(saved.state);
    const left = readSavedRun(port).runs.filter((record) => !record.settled);
    if (left.length === 0) {
        say('the job left no run going: nothing to clean up.');
        return EXIT.passed;
    }
    if (saved.steer && (await handedOver(io, saved, say)))
        return EXIT.passed;
    const inputs = {
        get: (name) => name === 'api_key'
            ? key
            : name === 'base_url'
                ? saved.baseUrl
                : name === 'name'
                    ? saved.name
                    : '',
        mask: (secret) => secrets.add(secret),
        world: commandWorld(io.env, io.cwd, undefined),
        nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
    };
    await post_run(port, inputs);
    if (port.failure)
        return EXIT.notPassed;
    new JobFiles(dir, saved, io.stderr).cleaned();
    return EXIT.passed;
}
function readSaved(path) {
    if (!(0,external_node_fs_namespaceObject.existsSync)(path))
        return undefined;
    try {
        const saved = JSON.parse((0,external_node_fs_namespaceObject.readFileSync)(path, 'utf8'));
        if (typeof saved.state !== 'object' || saved.state === null)
            return undefined;
        return {
            baseUrl: typeof saved.baseUrl === 'string' ? saved.baseUrl : '',
            name: typeof saved.name === 'string' ? saved.name : '',
            steer: saved.steer === true,
            state: saved.state,
        };
    }
    catch (error) {
        throw new UsageError(`${path} cannot be read: ${errorMessage(error)}`);
    }
}
async function handedOver(io, saved, say) {
    const job = MergeRequestJob.open(io.env, {
        key: saved.name,
        steer: true,
        say: (line) => io.stderr(line),
    });
    try {
        const newer = await job?.steering?.newerStep(Date.now() + HAND_OVER_ASK_MS);
        if (!newer)
            return false;
        say(`${newer}: it steers the run now; handing it over, cancelling nothing.`);
        return true;
    }
    catch (error) {
        say(`could not tell whether a newer pipeline steers the run (${errorMessage(error)}); cancelling it.`);
        return false;
    }
}

;// CONCATENATED MODULE: ./src/cli/preflight.ts






function preflight_refuse(io, json, message) {
    io.stderr(`cloud-agent-run: ${message}\n`);
    if (json)
        io.stdout(`${JSON.stringify(refusalJson(message), null, 2)}\n`);
    return EXIT.badInput;
}
async function preflight(command, io, options = { githubOnly: true }) {
    const key = readKey(io.env, io.cwd);
    const githubOnly = options.githubOnly ? githubOnlyGiven(command.inputs) : [];
    if (githubOnly.length > 0 && io.env.GITHUB_ACTIONS !== 'true') {
        const names = githubOnly.map(flagOf).join(', ');
        const one = githubOnly.length === 1;
        throw new UsageError(`${names} only ${one ? 'means' : 'mean'} something in a GitHub Actions workflow (${one ? 'it works' : 'they work'} on GitHub); outside one, leave ${one ? 'it' : 'them'} out.`);
    }
    if (command.summaryFile !== undefined)
        checkWritable((0,external_node_path_namespaceObject.resolve)(io.cwd, command.summaryFile));
    const tasks = command.tasksFile === undefined
        ? undefined
        : readText(io.cwd, command.tasksFile, '--tasks-file');
    const fromStdin = command.inputs.get('prompt_file') === '-';
    if (fromStdin)
        io.stderr('Reading the prompt from standard input (--prompt-file -).\n');
    const prompt = fromStdin ? await io.readStdin() : undefined;
    if (fromStdin && !prompt?.trim()) {
        throw new UsageError('--prompt-file - read an empty prompt from standard input.');
    }
    return { key, ...(tasks !== undefined ? { tasks } : {}), ...(prompt ? { prompt } : {}) };
}
function checkWritable(path) {
    try {
        (0,external_node_fs_namespaceObject.accessSync)((0,external_node_path_namespaceObject.dirname)(path), external_node_fs_namespaceObject.constants.W_OK);
    }
    catch {
        throw new UsageError(`--summary ${path}: its folder does not exist or cannot be written; nothing was started.`);
    }
}
function preflight_writeSummary(command, io, summary) {
    if (command.summaryFile === undefined)
        return undefined;
    const path = (0,external_node_path_namespaceObject.resolve)(io.cwd, command.summaryFile);
    try {
        (0,external_node_fs_namespaceObject.writeFileSync)(path, summary);
        return undefined;
    }
    catch (error) {
        return `--summary ${path} could not be written (${errorMessage(error)}); the run's outcome is in the outputs.`;
    }
}

;// CONCATENATED MODULE: ./src/reconcile/gitlab-plan.ts



function gitlabTagOf(run) {
    const metadata = (run.metadata ?? {});
    const text = (key) => (typeof metadata[key] === 'string' ? metadata[key] : undefined);
    const project = text(STEP_KEYS.repository);
    if (text(FORGE_KEY) !== 'gitlab' || !project)
        return undefined;
    const iid = Number(text(HANDOFF_KEYS.thread));
    const job = text('gh_step');
    return {
        project,
        mergeRequest: Number.isSafeInteger(iid) && iid > 0 ? iid : undefined,
        waits: text(HANDOFF_KEYS.wait) !== 'false',
        job: job && /^\d{1,20}$/.test(job) ? job : undefined,
        steers: text(HANDOFF_KEYS.steer) === 'true',
    };
}
function firstGitLabLook(run, options) {
    const tag = gitlabTagOf(run);
    if (!tag)
        return { kind: 'leave', why: 'it is not a GitLab run of this project' };
    if (isTerminal(run.state)) {
        if (tag.mergeRequest === undefined) {
            return { kind: 'leave', why: 'it ended, and no merge request note shows it' };
        }
        return { kind: 'finish', tag: { ...tag, mergeRequest: tag.mergeRequest } };
    }
    if (!tag.waits)
        return { kind: 'leave', why: 'its job left it going by design (--no-wait)' };
    if (!options.sweep)
        return { kind: 'leave', why: 'the sweep is off (--no-sweep)' };
    return { kind: 'sweep-check', tag };
}
function awaitingJob(tag, record, runId) {
    if (record?.run === runId && record.job && /^\d{1,20}$/.test(record.job))
        return record.job;
    return tag.job;
}
function handedOnInGitLab(judged, tag, pipelines) {
    const { pipeline } = judged;
    if (judged.status !== 'canceled' || !tag.steers || pipeline === undefined) {
        return { kind: 'sweep' };
    }
    const newer = pipelines.filter((one) => one.id > pipeline).sort((a, b) => b.id - a.id)[0];
    if (!newer)
        return { kind: 'sweep' };
    const which = `a newer pipeline of its merge request (${newer.id})`;
    if (!FINISHED_PIPELINE.has(newer.status)) {
        return {
            kind: 'leave',
            why: `its job was cancelled, and ${which} is ${newer.status}: a job there steers it (--previous-run steer)`,
        };
    }
    if (newer.status === 'success') {
        return {
            kind: 'leave',
            why: `its job was cancelled, and ${which} succeeded: a job there steered it and let it run on`,
        };
    }
    return { kind: 'sweep' };
}
const FINISHED_PIPELINE = new Set(['success', 'failed', 'canceled', 'skipped']);

;// CONCATENATED MODULE: ./src/reconcile/gitlab-pass.ts
















const FINISHED_LINE = 'Its job ended without waiting for it (--no-wait); a reconcile pass wrote its end here.';
async function gitlabReconcilePass(settings, deps) {
    const deadline = deps.now() + timing/* RECONCILE_PASS */.Rm.deadlineMs;
    const since = new Date(deps.now() - settings.lookbackMs).toISOString();
    const listed = await listTaggedRuns(deps.client, { [STEP_KEYS.repository]: settings.project, [FORGE_KEY]: 'gitlab' }, { updated_after: since }, { maxPages: timing/* RECONCILE_PASS */.Rm.maxPages, deadline });
    deps.log.info(`${listed.runs.length} GitLab run(s) of ${safeForLog(settings.project)} updated within ${formatDuration(settings.lookbackMs)}.`);
    const rows = await walkRuns(listed.runs, (run) => gitlab_pass_reconcileRun(run, settings, deps), {
        now: deps.now,
        deadline,
        dryRun: settings.dryRun,
        log: deps.log,
    });
    return {
        rows,
        filteredHere: listed.filteredHere,
        dryRun: settings.dryRun,
        lookbackMs: settings.lookbackMs,
    };
}
async function gitlab_pass_reconcileRun(run, settings, deps) {
    const look = firstGitLabLook(run, settings);
    if (look.kind === 'leave')
        return walk_rowOf(run, 'left', look.why);
    let note;
    try {
        note = look.tag.mergeRequest ? await noteOfRun(run, look.tag.mergeRequest, deps) : undefined;
    }
    catch (error) {
        return walk_rowOf(run, 'failed', `GitLab's notes could not be read: ${gitlabReason(error)}`);
    }
    try {
        return look.kind === 'finish'
            ? await gitlab_pass_finishRun(run, look.tag, note, settings, deps)
            : await gitlab_pass_sweepRun(run, look.tag, note, settings, deps);
    }
    catch (error) {
        return walk_rowOf(run, 'failed', `GitLab could not be read: ${gitlabReason(error)}`);
    }
}
async function noteOfRun(run, mergeRequest, deps) {
    const found = await MergeRequestNote.ofRun(deps.noteOn(mergeRequest), run.run_id, {
        log: deps.log,
    });
    return found && { ...found, where: `merge request !${mergeRequest}` };
}
async function gitlab_pass_finishRun(run, tag, note, settings, deps) {
    if (!note)
        return walk_rowOf(run, 'up-to-date', 'no note on its merge request records it');
    if (note.record.ended)
        return walk_rowOf(run, 'up-to-date', `its note on ${note.where} shows its end`);
    if (tag.waits) {
        const job = awaitingJob(tag, note.record, run.run_id);
        const status = job ? (await deps.gitlab.job(tag.project, job)).status : 'unknown';
        if (!jobFinished(status))
            return walk_rowOf(run, 'left', `its job is still reporting it (${status})`);
    }
    const why = `it ended ${run.state}; its note on ${note.where} still showed it going`;
    if (settings.dryRun)
        return walk_rowOf(run, 'finalized', why);
    const outcome = { kind: 'finished', run, elapsedMs: elapsedOf(run) };
    const summary = renderSummary(outcome);
    const text = tag.waits ? summary : `${summary.trim()}\n\n${FINISHED_LINE}`;
    const entry = {
        run: {
            runId: run.run_id,
            state: run.state,
            outcome: outcomeWordOf(outcome),
            ...(run.session_link ? { sessionLink: run.session_link } : {}),
        },
    };
    if (!(await note.note.upsert(text, { ...note.record, ended: true }, entry))) {
        return walk_rowOf(run, 'failed', `${why}; GitLab refused the note, so the next pass tries again`);
    }
    return walk_rowOf(run, 'finalized', why);
}
async function gitlab_pass_sweepRun(run, tag, note, settings, deps) {
    const job = awaitingJob(tag, note?.record, run.run_id);
    if (!job)
        return walk_rowOf(run, 'left', 'its tag names no job to ask GitLab about');
    const judged = await deps.gitlab.job(tag.project, job);
    const { status } = judged;
    if (!jobFinished(status))
        return walk_rowOf(run, 'left', `its job ${job} is ${status}`);
    if (tag.steers && tag.mergeRequest !== undefined && status === 'canceled') {
        const pipelines = await deps.gitlab.mergeRequestPipelines(tag.project, tag.mergeRequest);
        const handedOn = handedOnInGitLab(judged, tag, pipelines);
        if (handedOn.kind === 'leave')
            return walk_rowOf(run, 'left', handedOn.why);
    }
    const why = `its job ${job} finished (${status}) while the run still went: its runner was lost`;
    if (settings.dryRun)
        return walk_rowOf(run, 'swept', why);
    const report = await requestCancel(deps.client, run.run_id);
    if (report.kind !== 'cancelled' && report.kind !== 'already-finished') {
        return walk_rowOf(run, 'failed', `${why}; ${describeCancel(run.run_id, report)}`);
    }
    if (note && !note.record.ended) {
        const text = [
            '### \ud83e\uddf9 Cloud agent run: swept',
            '',
            `Run <code>${escapeMarkdown(run.run_id)}</code> was still going when its job ${job} finished (${escapeMarkdown(status)}) without it: a reconcile pass cancelled it.`,
        ].join('\n');
        await note.note.upsert(text, { ...note.record, ended: true });
    }
    return walk_rowOf({ ...run, state: report.kind === 'cancelled' ? 'CANCELLED' : run.state }, 'swept', why);
}

;// CONCATENATED MODULE: ./src/cli/signals.ts

function endOnSignal(io, options) {
    const host = io.process;
    const handlers = ['SIGINT', 'SIGTERM'].map((signal) => {
        const handler = () => {
            io.stderr(`${options.name}: received ${signal}; stopping.\n`);
            if (options.json) {
                io.stdout(`${JSON.stringify(options.answer(signal, EXIT[signal]), null, 2)}\n`);
            }
            host.exit(EXIT[signal]);
        };
        host.on(signal, handler);
        return [signal, handler];
    });
    return {
        stop: () => {
            for (const [signal, handler] of handlers)
                host.off(signal, handler);
        },
    };
}

;// CONCATENATED MODULE: ./src/cli/reconcile.ts














const VALUE_FLAGS = ['lookback', 'base_url', 'project'];
const BOOLEAN_FLAGS = ['dry_run', 'sweep'];
const reconcile_HELP = `Usage: cloud-agent-run reconcile [flags]

One reconcile pass over a GitLab project's runs, for a scheduled pipeline: it finishes the
merge request notes of runs that a --no-wait job left going, once they end, and cancels a run
still going whose job GitLab reports finished (its runner was lost). It reads WARP_API_KEY (or
WARP_API_KEY_FILE), and GitLab CI's CI_API_V4_URL and CI_PROJECT_PATH, with GITLAB_TOKEN (api
scope) to read jobs and write notes. A second pass over the same runs changes nothing.

  --lookback DURATION   consider runs updated within this duration (default 24h)
  --no-sweep            finish notes only; cancel nothing
  --dry-run             say what would be done; change nothing
  --project PATH        the project whose runs to look at (default CI_PROJECT_PATH)
  --base-url URL        the API's address (default the real service)
  --json                one JSON object on stdout: finalized, swept, outcome, exit_code, error
  --help                this text

Exit 0 when the pass did what it had to (or had nothing to do), 1 when every finish or sweep
it had to do failed, 2 for bad input, before any request, 3 when the service could not be
reached.
`;
function parseReconcileLine(args) {
    const inputs = new Map();
    let json = false;
    let help = false;
    for (let index = 0; index < args.length; index++) {
        const arg = args[index] ?? '';
        const [flag, inline] = arg.includes('=')
            ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
            : [arg, undefined];
        if (flag === '--json')
            json = true;
        else if (flag === '--help' || flag === '-h')
            help = true;
        else if (BOOLEAN_FLAGS.some((name) => flagOf(name) === flag)) {
            inputs.set(flag.slice(2).replace(/-/g, '_'), inline ?? 'true');
        }
        else if (BOOLEAN_FLAGS.some((name) => `--no-${flagOf(name).slice(2)}` === flag)) {
            inputs.set(flag.slice(5).replace(/-/g, '_'), 'false');
        }
        else if (VALUE_FLAGS.some((name) => flagOf(name) === flag)) {
            const value = inline ?? args[++index];
            if (value === undefined || (inline === undefined && value.startsWith('--'))) {
                throw new UsageError(`${flag} needs a value.`);
            }
            inputs.set(flag.slice(2).replace(/-/g, '_'), value);
        }
        else {
            throw new UsageError(`reconcile does not take ${JSON.stringify(arg.slice(0, 60))}; see cloud-agent-run reconcile --help.`);
        }
    }
    return { inputs, json, help };
}
async function runReconcile(args, declared, io) {
    const asksJson = args.includes('--json');
    const refuse = (message) => {
        io.stderr(`cloud-agent-run reconcile: ${message}\n`);
        if (asksJson)
            io.stdout(`${JSON.stringify(refusalJson(message), null, 2)}\n`);
        return EXIT.badInput;
    };
    let line;
    let key;
    try {
        line = parseReconcileLine(args);
        if (line.help) {
            io.stdout(reconcile_HELP);
            return EXIT.passed;
        }
        key = readKey(io.env, io.cwd);
    }
    catch (error) {
        if (error instanceof UsageError)
            return refuse(error.message);
        throw error;
    }
    const world = commandWorld(io.env, io.cwd, line.inputs.get('project'));
    const secrets = new Set([key]);
    const baseDefault = declared.base_url?.default;
    const source = {
        get: (name) => {
            if (name === 'api_key')
                return key;
            const given = line.inputs.get(name)?.trim();
            if (given !== undefined)
                return given;
            return name === 'base_url' && typeof baseDefault === 'string' ? baseDefault : '';
        },
        mask: (secret) => secrets.add(secret),
        world,
        nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
    };
    let settings;
    let access;
    try {
        outsideGitLab(io.env);
        settings = readGitLabReconcileSettings(source);
        access = gitlabAccess(io.env);
    }
    catch (error) {
        if (error instanceof InputError)
            return refuse(`${flagOf(error.input)} ${error.detail}`);
        if (error instanceof UsageError)
            return refuse(error.message);
        throw error;
    }
    secrets.add(access.token);
    const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined);
    const gitlab = new GitLabApi(access);
    const ids = (name) => JSON.parse(port.outputs[name] ?? '[]');
    const signals = endOnSignal(io, {
        name: 'cloud-agent-run reconcile',
        json: line.json,
        answer: (_, exitCode) => ({
            finalized: ids('finalized'),
            swept: ids('swept'),
            outcome: 'interrupted',
            exit_code: exitCode,
        }),
    });
    let code = EXIT.passed;
    let failure;
    try {
        const report = await gitlabReconcilePass(settings, {
            client: serviceClient(settings, port),
            gitlab,
            noteOn: (mergeRequest) => ({
                ...access,
                projectId: settings.project,
                projectPath: settings.project,
                mergeRequestIid: mergeRequest,
            }),
            now: Date.now,
            log: port,
        });
        await publishPass(port, report);
        if (port.failure) {
            code = EXIT.notPassed;
            failure = port.failure;
        }
        if (!line.json)
            io.stdout(plainSummary(renderPassSummary(report)));
    }
    catch (error) {
        failure = errorMessage(error);
        port.error(failure);
        code = EXIT.unreachable;
    }
    finally {
        signals.stop();
    }
    if (line.json) {
        const answer = {
            finalized: ids('finalized'),
            swept: ids('swept'),
            outcome: failure ? 'error' : 'succeeded',
            exit_code: code,
            ...(failure ? { error: failure } : {}),
        };
        io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
    }
    return code;
}
function gitlabAccess(env) {
    const apiUrl = (env.CI_API_V4_URL ?? '').trim().replace(/\/+$/, '');
    const token = (env.GITLAB_TOKEN ?? '').trim();
    if (!/^https?:\/\/[^\s]+$/.test(apiUrl)) {
        throw new UsageError("CI_API_V4_URL does not name GitLab's API: reconcile runs in a GitLab CI job.");
    }
    if (!token || /\s/.test(token)) {
        throw new UsageError('GITLAB_TOKEN is not set (or holds whitespace): reconcile reads jobs and writes merge request notes with a token of the api scope.');
    }
    return { apiUrl, token };
}
function outsideGitLab(env) {
    if (env.GITLAB_CI === 'true')
        return;
    throw new UsageError("GITLAB_CI is not set: reconcile runs in a GitLab CI job (a scheduled pipeline), where it reads the jobs of the runs and writes merge request notes through GitLab's API (CI_API_V4_URL, GITLAB_TOKEN). Elsewhere there is nothing for it to reconcile: the command cancels its own runs, and cloud-agent-run cleanup recovers a killed one.");
}

;// CONCATENATED MODULE: ./src/github/close-pulls.ts


const close_pulls_PARALLEL = 4;
async function closePulls(octokit, pulls, comment, deadline, now = Date.now) {
    const results = new Array(pulls.length);
    let next = 0;
    const worker = async () => {
        for (let index = next++; index < pulls.length; index = next++) {
            const pull = pulls[index];
            if (!pull)
                continue;
            const left = deadline - now();
            results[index] =
                left <= 0
                    ? { url: pull.url, closed: false, why: 'the command ran out of time' }
                    : await closeOne(octokit, pull, comment, Math.min(left, timing/* GITHUB_CALL_DEADLINE_MS */.vt));
        }
    };
    await Promise.all(Array.from({ length: close_pulls_PARALLEL }, worker));
    return results;
}
async function closeOne(octokit, pull, comment, ms) {
    const at = { owner: pull.owner, repo: pull.repo };
    try {
        await octokit.rest.issues.createComment({
            ...at,
            issue_number: pull.number,
            body: comment,
            ...withDeadline(ms),
        });
    }
    catch (error) {
        return { url: pull.url, closed: false, why: `the comment failed: ${reasonOf(error)}` };
    }
    try {
        await octokit.rest.pulls.update({
            ...at,
            pull_number: pull.number,
            state: 'closed',
            ...withDeadline(ms),
        });
    }
    catch (error) {
        return {
            url: pull.url,
            closed: false,
            why: `commented, but the close failed: ${reasonOf(error)}`,
        };
    }
    return { url: pull.url, closed: true, why: '' };
}

;// CONCATENATED MODULE: ./src/report/close.ts











const CLOSE_DEADLINE_MS = 10 * 60_000;
const MAX_COMMENT = 65_536;
async function close_run(io, inputs) {
    const ended = await runStepBody(io, async () => {
        const now = Date.now();
        const settings = readReportSettings(inputs, now);
        const campaign = settings.campaign;
        if (!campaign)
            throw new InputError('campaign', 'names the campaign whose pull requests to close.');
        const comment = inputs.get('comment');
        if (!comment || comment.length > MAX_COMMENT) {
            throw new InputError('comment', `is the comment each pull request is closed with: give one of at most ${MAX_COMMENT} characters.`);
        }
        if (!settings.githubToken) {
            throw new InputError('github_token', "is needed to close pull requests: a token with pull requests write on the campaign's repositories (GITHUB_TOKEN for the command).");
        }
        const deps = { deadline: now + CLOSE_DEADLINE_MS, log: io };
        const client = serviceClient(settings, io);
        const what = { period: settings.period, home: undefined, campaign };
        const { rows } = await collectRows(client, what, deps);
        const pulls = new Map();
        const left = [];
        const seen = new Set();
        for (const row of rows) {
            const url = row.pullRequest?.url;
            if (!url || seen.has(url))
                continue;
            seen.add(url);
            const address = pullAddressOf(url);
            if (address)
                pulls.set(url, address);
            else
                left.push({ pull_request: url, why: 'a merge request is not closed by this command' });
        }
        const octokit = await loadOctokit(settings.githubToken, inputs.world.apiUrl);
        const statuses = await readPullStatuses(octokit, [...pulls.values()], deps.deadline, {
            stateOnly: true,
        });
        const open = [];
        for (const [url, status] of statuses) {
            const address = pulls.get(url);
            if ('unknown' in status)
                left.push({ pull_request: url, why: status.unknown });
            else if (status.state === 'open' || status.state === 'draft') {
                if (address)
                    open.push(address);
            }
            else
                left.push({ pull_request: url, why: `already ${status.state}` });
        }
        const results = await closePulls(octokit, open, comment, deps.deadline);
        const closed = results.filter((one) => one.closed).map((one) => one.url);
        for (const one of results) {
            if (!one.closed)
                left.push({ pull_request: one.url, why: one.why });
        }
        for (const url of closed)
            io.info(`Closed ${safeForLog(url, 300)}.`);
        for (const one of left) {
            io.info(`Left ${safeForLog(one.pull_request, 300)}: ${safeForLog(one.why, 300)}.`);
        }
        io.setOutput('closed', JSON.stringify(closed));
        io.setOutput('left', JSON.stringify(left));
        await io.appendSummary(closeSummary(campaign, closed, left)).catch(() => { });
        const failed = results.filter((one) => !one.closed);
        io.info(`Campaign ${campaign}: closed ${closed.length} of ${open.length} open pull requests; ${left.length} left as they are.`);
        if (failed.length > 0) {
            io.setFailed(`${failed.length} of the campaign's open pull requests could not be closed: ${failed.map((one) => `${one.url} (${one.why})`).join('; ')}`);
        }
    });
    return 'error' in ended ? { error: ended.error } : {};
}
function closeSummary(campaign, closed, left) {
    const link = (url) => {
        const safe = safeHttpUrl(url);
        const address = pullAddressOf(url);
        const name = address ? `${address.owner}/${address.repo}#${address.number}` : url;
        return safe ? `[${escapeMarkdown(name)}](${safe})` : escapeMarkdown(url);
    };
    const lines = [
        `### Campaign ${escapeMarkdown(campaign)}: closed ${closed.length} pull ${closed.length === 1 ? 'request' : 'requests'}`,
        '',
        ...closed.map((url) => `- closed ${link(url)}`),
        ...left.map((one) => `- left ${link(one.pull_request)}: ${escapeMarkdown(one.why)}`),
        '',
    ];
    return `${lines.join('\n')}\n`;
}

;// CONCATENATED MODULE: ./src/cli/source.ts

function commandInputs(asked, world, secrets) {
    return {
        get: (name) => inputValue(name, asked),
        mask: (secret) => secrets.add(secret),
        world,
        nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
    };
}
function inputValue(name, { command, declared, ready, env }) {
    if (name === 'api_key')
        return ready.key;
    if (name === 'tasks' && ready.tasks !== undefined)
        return ready.tasks.trim();
    if (name === 'prompt' && ready.prompt !== undefined)
        return ready.prompt.trim();
    if (name === 'prompt_file' && ready.prompt !== undefined)
        return '';
    const given = command.inputs.get(name);
    if (given !== undefined)
        return given.trim();
    if (name === 'github_token')
        return env.GITHUB_TOKEN ?? '';
    const fallback = declared[name]?.default;
    return typeof fallback === 'string' ? fallback : '';
}

;// CONCATENATED MODULE: ./src/cli/report.ts









async function runReportCommand(args, declared, io) {
    return runReadingCommand(args, declared, io, {
        name: 'report',
        usage: () => reportUsage(declared),
        step: main_run,
    });
}
async function runReadingCommand(args, declared, io, reading) {
    let command;
    try {
        command = parseCommandLine(args, declared);
        if (command.tasksFile !== undefined) {
            throw new UsageError(`${reading.name} does not take --tasks-file: it starts no run; see cloud-agent-run ${reading.name} --help.`);
        }
        if (command.inputs.has('github_token')) {
            throw new UsageError(`cloud-agent-run ${reading.name} reads the GitHub token from GITHUB_TOKEN: a flag would show in the shell's history and the process list.`);
        }
    }
    catch (error) {
        if (!(error instanceof UsageError))
            throw error;
        return preflight_refuse(io, args.includes('--json'), error.message);
    }
    if (command.help || command.version) {
        io.stdout(reading.usage());
        return 0;
    }
    let ready;
    try {
        ready = await preflight(command, io, { githubOnly: false });
        if (reading.needsGitHubToken && !io.env.GITHUB_TOKEN?.trim()) {
            throw new UsageError(`GITHUB_TOKEN is not set: ${reading.needsGitHubToken}`);
        }
    }
    catch (error) {
        if (!(error instanceof UsageError))
            throw error;
        return preflight_refuse(io, command.json, error.message);
    }
    const world = commandWorld(io.env, io.cwd, command.project);
    const secrets = new Set([ready.key]);
    if (io.env.GITHUB_TOKEN?.trim())
        secrets.add(io.env.GITHUB_TOKEN.trim());
    const inputs = commandInputs({ command, declared, ready, env: io.env }, world, secrets);
    const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined);
    const signals = endOnSignal(io, {
        name: `cloud-agent-run ${reading.name}`,
        json: command.json,
        answer: (signal, exitCode) => answerJson({ outputs: port.outputs, failure: undefined, hadRun: false, signal }, exitCode),
    });
    let end;
    try {
        end = await reading.step(port, inputs);
    }
    finally {
        signals.stop();
    }
    const afterwards = preflight_writeSummary(command, io, port.summary);
    if (afterwards)
        io.stderr(`error: ${afterwards}\n`);
    const answer = { ...end, hadRun: false, outputs: port.outputs, failure: port.failure, afterwards };
    const code = exitCodeOf(answer);
    io.stdout(command.json
        ? `${JSON.stringify(answerJson(answer, code), null, 2)}\n`
        : plainSummary(port.summary));
    return code;
}
function reportUsage(declared) {
    const lines = [
        'Usage: cloud-agent-run report [flags]',
        '',
        "What the runs did and cost in a period, from the service's own records: by day, merge or",
        'pull request, workflow and key, as a table and data. It starts no run and changes nothing.',
        `The key is read from ${KEY_VARIABLE}, else from the file ${KEY_FILE_VARIABLE} names.`,
        '',
        'Exit codes: 0 the report was made; 1 a file of it (--summary, --report-dir) could not be',
        'written; 2 bad input (nothing asked); 3 the service could not be reached or refused the',
        'key; 130/143 interrupted by SIGINT/SIGTERM.',
        '',
        'Own flags:',
        '  --json               one JSON object on stdout: credits, runs, report (the whole report),',
        '                       outcome, exit_code and error; the log on stderr',
        '  --summary FILE       write the report (Markdown, with its chart) to FILE',
        PROJECT_HELP,
        '  --help',
        '',
        'With --campaign, the pull requests its runs opened are read with the token in GITHUB_TOKEN',
        '(their state, checks and review); without one, each shows its link and "state unknown".',
        '',
        'Inputs (as in report/action.yml):',
        ...inputLines(withoutToken(declared)),
    ];
    return `${lines.join('\n')}\n`;
}
function withoutToken(declared) {
    return Object.fromEntries(Object.entries(declared).filter(([name]) => name !== 'github_token'));
}

;// CONCATENATED MODULE: ./src/cli/campaign.ts






const campaign_HELP = `Usage: cloud-agent-run campaign status|cancel|close NAME [flags]

One instruction over many repositories, as one campaign (the main command's --campaign with
--tasks-file starts it). The key is read from ${KEY_VARIABLE}.

  status NAME   per repository: its newest run's outcome, session and cost, the pull request
                its runs opened, and (with GITHUB_TOKEN) that pull request's state, checks and
                review; the totals and a burndown chart. The report's flags (--period,
                --report-dir, --summary FILE, --unit); the period is 90d unless given.
  cancel NAME   cancels every working run of the campaign, whichever repository it is of
                (the main command with --cancel-only --campaign NAME).
  close NAME --comment TEXT
                closes the campaign's open and draft pull requests, each with TEXT as a
                comment; needs GITHUB_TOKEN with pull requests write on those repositories.

Each says what it did; --json prints it as one JSON object. Exit codes: 0 done; 1 something
could not be done (a pull request not closed); 2 bad input (nothing asked); 3 the service could
not be reached or refused the key; 130/143 interrupted.
`;
async function runCampaign(args, report, io, startCommand) {
    const [verb, name, ...flags] = args;
    if (verb === undefined || verb === '--help' || verb === '-h') {
        io.stdout(campaign_HELP);
        return EXIT.passed;
    }
    const json = args.includes('--json');
    if (verb !== 'status' && verb !== 'cancel' && verb !== 'close') {
        return preflight_refuse(io, json, `campaign takes status, cancel or close; got "${verb}". See cloud-agent-run campaign --help.`);
    }
    if (name === '--help' || name === '-h') {
        io.stdout(campaign_HELP);
        return EXIT.passed;
    }
    if (name === undefined || name.startsWith('--')) {
        return preflight_refuse(io, json, `campaign ${verb} needs the campaign's name: cloud-agent-run campaign ${verb} NAME.`);
    }
    const named = ['--campaign', name, ...flags];
    if (verb === 'cancel')
        return startCommand(['--cancel-only', ...named]);
    if (verb === 'status') {
        return runReadingCommand(named, report, io, {
            name: 'campaign status',
            usage: () => campaign_HELP,
            step: main_run,
        });
    }
    const closeInputs = {
        ...pick(report, ['base_url', 'campaign', 'period', 'github_token']),
        comment: { description: 'The comment each pull request is closed with.', default: '' },
    };
    return runReadingCommand(named, closeInputs, io, {
        name: 'campaign close',
        usage: () => `${campaign_HELP}\nFlags of close:\n${inputLines(withoutToken(closeInputs)).join('\n')}\n`,
        step: close_run,
        needsGitHubToken: "close writes a comment on each open pull request and closes it: export a token with pull requests write on the campaign's repositories.",
    });
}
function pick(declared, names) {
    return Object.fromEntries(Object.entries(declared).filter(([name]) => names.includes(name)));
}

;// CONCATENATED MODULE: ./src/cli/speech.ts

const FUNCTION_WORDS = 'the|a|an|it|its|this|that|no|not|one|each|every|all|any|none|some';
const DOOR_PHRASES = [
    [/\bthe workflow cancelled the step\b/g, 'a signal stopped the command'],
    [/\bThe workflow cancelled the step\b/g, 'A signal stopped the command'],
    [/\bcancelled with the workflow\b/g, 'cancelled by a signal'],
    [/\b([Tt])his step\b/g, '$1his command'],
    [/\b([Tt])he step\b/g, '$1he command'],
    [/, and on a self-hosted runner its proxy/g, ', and the proxy'],
];
function commandSpeech(declared) {
    const names = Object.keys(declared).sort((a, b) => b.length - a.length);
    const toggles = names.filter((name) => ['true', 'false'].includes(String(declared[name]?.default)));
    const underscored = names.filter((name) => name.includes('_'));
    if (underscored.length === 0 || toggles.length === 0)
        return (text) => text;
    const alternatives = (list) => list.map((name) => name.replace(/_/g, '(?:_|&#95;)')).join('|');
    const inputPhrase = new RegExp(`\\b[Tt]he (${alternatives(names)}) input\\b|\\bInput "(${alternatives(names)})"`, 'g');
    const valued = new RegExp(`(?<![\\w-])(${alternatives(underscored)}): (?!(?:${FUNCTION_WORDS})\\b)([\\w.-]+)`, 'g');
    const toggled = new RegExp(`(?<![\\w-])(${alternatives(toggles)}): (true|false)\\b`, 'g');
    const bare = new RegExp(`(?<![\\w-])(${alternatives(underscored)})(?![\\w-]| output)`, 'g');
    return (text) => {
        let said = text.replace(inputPhrase, (_, one, other) => flagNamed(one ?? other ?? ''));
        said = said.replace(toggled, (_, name, value) => value === 'true' ? flagNamed(name) : `--no-${flagNamed(name).slice(2)}`);
        said = said.replace(valued, (_, name, value) => flagNamed(name) === 'WARP_API_KEY' ? 'WARP_API_KEY' : `${flagNamed(name)} ${value}`);
        said = said.replace(bare, (name) => flagNamed(name));
        for (const [phrase, words] of DOOR_PHRASES)
            said = said.replace(phrase, words);
        return said;
    };
}
function flagNamed(written) {
    const input = written.replace(/&#95;/g, '_');
    return input === 'api_key' ? 'WARP_API_KEY' : flagOf(input);
}

;// CONCATENATED MODULE: ./src/cli/io.ts
function commandIo(host) {
    return {
        env: host.env,
        cwd: host.cwd(),
        process: host,
        stderr: closableWriter(host.stderr),
        stdout: closableWriter(host.stdout),
        readStdin: async () => {
            let text = '';
            for await (const chunk of host.stdin)
                text += String(chunk);
            return text;
        },
    };
}
function closableWriter(stream) {
    let open = true;
    stream.on('error', () => {
        open = false;
    });
    return (text) => {
        if (open && !stream.destroyed)
            stream.write(text);
    };
}

;// CONCATENATED MODULE: ./src/cli/door.ts




















async function runCli(args, action, io) {
    const manifest = await readDeclaredInputs(action);
    const { inputs: declared, version } = manifest;
    if (args[0] === 'reconcile')
        return runReconcile(args.slice(1), declared, io);
    if (args[0] === 'report')
        return await runReportCommand(args.slice(1), manifest.report, io);
    if (args[0] === 'cleanup')
        return runCleanup(args.slice(1), io);
    if (args[0] === 'campaign') {
        return await runCampaign(args.slice(1), manifest.report, io, (start) => runCli(start, action, io));
    }
    const asksJson = args.includes('--json');
    let command;
    try {
        command = parseCommandLine(args, declared);
    }
    catch (error) {
        if (!(error instanceof UsageError))
            throw error;
        return preflight_refuse(io, asksJson, error.message);
    }
    if (command.help) {
        io.stdout(usage(declared));
        return EXIT.passed;
    }
    if (command.version) {
        io.stdout(`cloud-agent-run ${version}\n`);
        return EXIT.passed;
    }
    const signals = watchSignals(io, command.json);
    try {
        let ready;
        try {
            ready = await preflight(command, io);
        }
        catch (error) {
            if (!(error instanceof UsageError))
                throw error;
            return preflight_refuse(io, command.json, error.message);
        }
        return await runStep(command, declared, io, ready, signals);
    }
    finally {
        signals.stop();
    }
}
async function runStep(command, declared, io, ready, signals) {
    const world = commandWorld(io.env, io.cwd, command.project);
    const secrets = new Set([ready.key]);
    const inputs = commandInputs({ command, declared, ready, env: io.env }, world, secrets);
    const mergeRequest = MergeRequestJob.open(io.env, {
        key: command.inputs.get('name'),
        steer: command.inputs.get('previous_run') === 'steer',
        say: io.stderr,
    });
    if (mergeRequest?.steering)
        inputs.steering = mergeRequest.steering;
    if (io.env.GITLAB_TOKEN)
        secrets.add(io.env.GITLAB_TOKEN.trim());
    mergeRequest?.started();
    const jobDir = jobDirOf(io.env, io.cwd);
    const jobFiles = jobDir === undefined
        ? undefined
        : new JobFiles(jobDir, {
            baseUrl: inputs.get('base_url'),
            name: inputs.get('name'),
            steer: inputs.get('previous_run') === 'steer',
        }, io.stderr);
    let exitAsked = () => undefined;
    const stopped = new Promise((settle) => (exitAsked = () => settle('stopped')));
    const port = new CommandStepIo(io.stderr, secrets, io.process, (code) => exitAsked(code), {
        onOutput: (name, value) => {
            if (name === 'run_id' && value)
                mergeRequest?.runSeen(value);
        },
        ...(jobFiles ? { onState: (state) => jobFiles.saveState(state) } : {}),
        speech: commandSpeech(declared),
    });
    signals.reportFrom(port);
    const ended = await Promise.race([run(port, inputs), stopped]);
    signals.cleaningUp();
    await door_ownRuns(port, inputs);
    const end = ended === 'stopped' ? { hadRun: true } : ended;
    const afterwards = preflight_writeSummary(command, io, port.summary);
    jobFiles?.finish(port.outputs);
    signals.stop();
    const answer = { ...end, outputs: port.outputs, failure: port.failure, afterwards };
    const code = exitCodeOf({ ...answer, ...(signals.received ? { signal: signals.received } : {}) });
    if (afterwards)
        io.stderr(`error: ${afterwards}\n`);
    io.stdout(command.json
        ? `${JSON.stringify(answerJson({ ...answer, signal: signals.received }, code), null, 2)}\n`
        : plainSummary(port.summary));
    await mergeRequest?.finish(port.summary, port.outputs, signals.received !== undefined);
    if (ended === 'stopped' || signals.received)
        io.process.exit(code);
    return code;
}
async function door_ownRuns(port, inputs) {
    if (readSavedRun(port).runs.every((record) => record.settled))
        return;
    await post_run(port, inputs);
}
function watchSignals(io, json) {
    let cleaningUp = false;
    let port;
    let received;
    const host = io.process;
    const handlers = ['SIGINT', 'SIGTERM'].map((name) => {
        const handler = () => {
            received ??= name;
            if (cleaningUp) {
                port?.info(`Received ${name}: still cancelling what the command started; then it exits.`);
                return;
            }
            if (host.listenerCount(name) > 1)
                return;
            io.stderr(`cloud-agent-run: received ${name} before any run was made; nothing to cancel.\n`);
            const answer = {
                outputs: port?.outputs ?? {},
                failure: undefined,
                hadRun: false,
                signal: name,
            };
            if (json)
                io.stdout(`${JSON.stringify(answerJson(answer, EXIT[name]), null, 2)}\n`);
            host.exit(EXIT[name]);
        };
        host.on(name, handler);
        return [name, handler];
    });
    return {
        get received() {
            return received;
        },
        reportFrom: (stepPort) => (port = stepPort),
        cleaningUp: () => (cleaningUp = true),
        stop: () => {
            for (const [name, handler] of handlers)
                host.off(name, handler);
        },
    };
}

;// CONCATENATED MODULE: external "node:v8"
const external_node_v8_namespaceObject = __lazyBuiltin("node:v8");
;// CONCATENATED MODULE: ./src/heap.ts

function keepYoungGenerationSmall() {
    (0,external_node_v8_namespaceObject.setFlagsFromString)('--semi-space-growth-factor=1');
}

;// CONCATENATED MODULE: ./src/index.ts





async function runInActions(host, step) {
    const { io, inputs } = runnerDoor(host);
    await step(io, inputs);
}
const runMain = (host) => runInActions(host, run);
const runPost = (host) => runInActions(host, post_run);
const src_runReconcile = (host) => runInActions(host, reconcile_main_run);
const runReport = (host) => runInActions(host, main_run);



var __webpack_exports__commandIo = __webpack_exports__.C7;
var __webpack_exports__keepYoungGenerationSmall = __webpack_exports__.Dd;
var __webpack_exports__runCli = __webpack_exports__.ak;
var __webpack_exports__runInActions = __webpack_exports__.gP;
var __webpack_exports__runMain = __webpack_exports__.VN;
var __webpack_exports__runPost = __webpack_exports__.a2;
var __webpack_exports__runReconcile = __webpack_exports__.Kf;
var __webpack_exports__runReport = __webpack_exports__.qi;
export { __webpack_exports__commandIo as commandIo, __webpack_exports__keepYoungGenerationSmall as keepYoungGenerationSmall, __webpack_exports__runCli as runCli, __webpack_exports__runInActions as runInActions, __webpack_exports__runMain as runMain, __webpack_exports__runPost as runPost, __webpack_exports__runReconcile as runReconcile, __webpack_exports__runReport as runReport };

//# sourceMappingURL=index.js.map