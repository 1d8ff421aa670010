export const id = 847;
export const ids = [847];
export const modules = {

/***/ 4847:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   artifactsToDownload: () => (/* binding */ artifactsToDownload)
/* harmony export */ });
/* unused harmony export artifactMatcher */
/* harmony import */ var picomatch__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4006);
/* harmony import */ var picomatch__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(picomatch__WEBPACK_IMPORTED_MODULE_0__);

function artifactMatcher(patterns) {
    const matchers = patterns.map((pattern) => picomatch__WEBPACK_IMPORTED_MODULE_0___default()(pattern, { dot: true, basename: !pattern.includes('/'), nonegate: true }));
    return (filepath) => {
        const normalized = filepath.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
        return matchers.some((isMatch) => isMatch(normalized));
    };
}
function artifactsToDownload(artifacts, patterns) {
    if (patterns.length === 0)
        return [];
    const matches = artifactMatcher(patterns);
    return artifacts.filter((artifact) => artifact.type === 'FILE' &&
        artifact.artifactUid !== undefined &&
        artifact.filepath !== undefined &&
        matches(artifact.filepath));
}


/***/ })

};

//# sourceMappingURL=847.index.js.map