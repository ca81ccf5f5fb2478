/* The driver app's service worker (drivers.views.driver_app_service_worker).
   The app's files are kept in a cache named after their digest, so the app opens on a
   poor connection or none; a new version replaces the cache. The driver app API is never
   cached here: the page keeps its own last answer and says when it is offline. */
"use strict";
const CACHE = "driver-app-{{ version }}";
const SHELL = {{ shell_json|safe }};

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("driver-app-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim())
  );
});

// The app's own files: from the cache at once, refreshed from the network behind it
// (stale-while-revalidate). Anything else (the API) goes to the network untouched.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || !SHELL.includes(url.pathname)) {
    return;
  }
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(url.pathname).then((cached) => {
        const fresh = fetch(event.request)
          .then((response) => {
            if (response.ok) cache.put(url.pathname, response.clone());
            return response;
          })
          .catch(() => cached || Response.error());
        return cached || fresh;
      })
    )
  );
});
