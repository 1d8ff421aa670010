export const id = 573;
export const ids = [573];
export const modules = {

/***/ 9573:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  createOctokit: () => (/* binding */ createOctokit)
});

// EXTERNAL MODULE: ./node_modules/@octokit/core/dist-src/index.js + 13 modules
var dist_src = __webpack_require__(5194);
// EXTERNAL MODULE: ./node_modules/@octokit/plugin-paginate-rest/dist-bundle/index.js
var dist_bundle = __webpack_require__(3779);
// EXTERNAL MODULE: ./src/timing.ts
var timing = __webpack_require__(8117);
// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
// EXTERNAL MODULE: external "node:https"
var external_node_https_ = __webpack_require__(4708);
// EXTERNAL MODULE: external "node:stream"
var external_node_stream_ = __webpack_require__(7075);
// EXTERNAL MODULE: ./node_modules/@actions/http-client/lib/index.js + 1 modules
var lib = __webpack_require__(4942);
;// CONCATENATED MODULE: ./src/github/fetch.ts




const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
const NULL_BODY = new Set([204, 205, 304]);
async function nodeFetch(input, init = {}) {
    if (input instanceof Request)
        throw new TypeError('nodeFetch takes a URL, not a Request');
    const signal = init.signal ?? undefined;
    let url = new URL(input);
    let method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    let body = bytesOf(init.body);
    for (let redirects = 0;; redirects += 1) {
        signal?.throwIfAborted();
        const response = await send(url, method, headers, body, signal);
        const location = response.headers.get('location');
        if (!REDIRECTS.has(response.status) || location === null || init.redirect === 'manual') {
            return response;
        }
        await response.body?.cancel();
        if (init.redirect === 'error')
            throw new TypeError(`fetch failed: redirected to ${location}`);
        if (redirects === MAX_REDIRECTS)
            throw new TypeError('fetch failed: too many redirects');
        const next = new URL(location, url);
        if ((response.status === 303 && method !== 'HEAD') ||
            ((response.status === 301 || response.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            for (const name of ['content-type', 'content-length', 'content-encoding']) {
                headers.delete(name);
            }
        }
        if (next.origin !== url.origin)
            headers.delete('authorization');
        url = next;
    }
}
function bytesOf(body) {
    if (body === undefined || body === null)
        return undefined;
    if (typeof body === 'string')
        return Buffer.from(body);
    if (body instanceof ArrayBuffer)
        return Buffer.from(body);
    if (ArrayBuffer.isView(body))
        return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    throw new TypeError(`nodeFetch sends a string or bytes, not ${Object.prototype.toString.call(body)}`);
}
function send(url, method, headers, body, signal) {
    return new Promise((resolve, reject) => {
        const outgoing = Object.fromEntries(headers);
        if (body !== undefined)
            outgoing['content-length'] = body.byteLength;
        const request = (url.protocol === 'https:' ? external_node_https_.request : external_node_http_.request)(url, {
            method,
            headers: outgoing,
            agent: new lib/* HttpClient */.Qq().getAgent(url.href),
        });
        let answer;
        const onAbort = () => {
            const reason = signal?.reason;
            if (answer)
                answer.destroy(reason);
            request.destroy(reason);
            reject(reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const done = () => signal?.removeEventListener('abort', onAbort);
        request.on('error', (error) => {
            done();
            reject(error);
        });
        request.on('response', (message) => {
            answer = message;
            message.on('close', done);
            const responseHeaders = new Headers();
            for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) {
                responseHeaders.append(message.rawHeaders[i] ?? '', message.rawHeaders[i + 1] ?? '');
            }
            const status = message.statusCode ?? 0;
            const hasBody = method !== 'HEAD' && !NULL_BODY.has(status);
            if (!hasBody)
                message.resume();
            const response = new Response(hasBody ? external_node_stream_.Readable.toWeb(message) : null, { status, statusText: message.statusMessage ?? '', headers: responseHeaders });
            Object.defineProperty(response, 'url', { value: url.href });
            resolve(response);
        });
        request.end(body);
    });
}

;// CONCATENATED MODULE: ./src/github/client.ts




const ROUTES = {
    actions: {
        getWorkflowRun: 'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
        listWorkflowRuns: 'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
    },
    checks: {
        create: 'POST /repos/{owner}/{repo}/check-runs',
        get: 'GET /repos/{owner}/{repo}/check-runs/{check_run_id}',
        listForRef: 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
        update: 'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
    },
    issues: {
        createComment: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
        deleteComment: 'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
        get: 'GET /repos/{owner}/{repo}/issues/{issue_number}',
        getComment: 'GET /repos/{owner}/{repo}/issues/comments/{comment_id}',
        listComments: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        listCommentsForRepo: 'GET /repos/{owner}/{repo}/issues/comments',
        updateComment: 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
    },
    pulls: {
        createReview: 'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
        get: 'GET /repos/{owner}/{repo}/pulls/{pull_number}',
        listFiles: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
        listReviews: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
        update: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
        updateReview: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}',
    },
    repos: {
        compareCommitsWithBasehead: 'GET /repos/{owner}/{repo}/compare/{basehead}',
        createCommitStatus: 'POST /repos/{owner}/{repo}/statuses/{sha}',
        listCommitStatusesForRef: 'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
        getCollaboratorPermissionLevel: 'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
    },
    users: {
        getAuthenticated: 'GET /user',
    },
};
function restMethods(octokit) {
    const rest = {};
    for (const [scope, methods] of Object.entries(ROUTES)) {
        const scoped = {};
        for (const [name, route] of Object.entries(methods)) {
            const [method, url] = route.split(' ');
            scoped[name] = octokit.request.defaults({ method, url });
        }
        rest[scope] = scoped;
    }
    return { rest: rest };
}
const GitHubClient = dist_src/* Octokit */.E.plugin(restMethods, dist_bundle/* paginateRest */.ud);
function createOctokit(token, baseUrl) {
    const octokit = new GitHubClient({ auth: token, baseUrl, request: { fetch: nodeFetch } });
    octokit.hook.before('request', (options) => {
        options.request ??= {};
        options.request.signal ??= AbortSignal.timeout(timing/* GITHUB_CALL_DEADLINE_MS */.vt);
    });
    return octokit;
}


/***/ })

};

//# sourceMappingURL=573.index.js.map