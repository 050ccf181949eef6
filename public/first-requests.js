// The first page's API requests, started by the page itself (index.html loads this before the
// app's code): for a signed-in user (the token the app keeps in localStorage, src/lib/token-store.ts),
// the current user and, on an errors list, its project and its first page of errors. The app takes
// each answer once instead of asking again (src/lib/first-requests.ts), so these requests run
// while its code is still arriving. URLs and headers are the app's own (src/api/http.ts,
// src/api/errors.ts); one that differs is simply not taken, and the app asks as it always does.
// A plain script, not a module, so that it runs before the entry; a file, not inline, for the CSP.
;(function () {
  let token = null
  try {
    token = window.localStorage.getItem('errata.token')
  } catch (e) {
    return
  }
  if (!token) return
  const headers = { Accept: 'application/json', 'X-Version': '2', Authorization: 'token ' + token }
  const requests = {}
  function start(url) {
    const request = fetch(url, { headers: headers })
    // A failure is the app's to report when it takes the answer; none goes unhandled meanwhile.
    request.catch(function () {})
    requests[url] = request
  }
  start('/api/user')
  const list = /^\/projects\/([^/]+)\/errors\/?$/.exec(window.location.pathname)
  if (list) {
    const project = '/api/projects/' + encodeURIComponent(decodeURIComponent(list[1]))
    start(project)
    // The list's parameters as the app sends them: sort, direction, page size, then the filters
    // (`f=field:type:value`; no `f` is the default view, open errors).
    const search = new URLSearchParams(window.location.search)
    const params = new URLSearchParams()
    params.set('sort', search.get('sort') || 'last_seen')
    params.set('direction', search.get('direction') || 'desc')
    params.set('per_page', '50')
    const entries = search.has('f') ? search.getAll('f').filter(Boolean) : ['error.status:eq:open']
    for (let i = 0; i < entries.length; i++) {
      const match = /^([^:]+):([^:]+):(.*)$/.exec(entries[i])
      if (!match) return finish()
      params.append('filters[' + match[1] + '][][type]', match[2])
      params.append('filters[' + match[1] + '][][value]', match[3])
    }
    start(project + '/errors?' + params.toString())
  }
  finish()
  function finish() {
    window.errataFirstRequests = { token: token, requests: requests }
  }
})()
