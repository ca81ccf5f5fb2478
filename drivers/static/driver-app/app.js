/* The driver app (issue 23): a progressive web app over the driver app API (contract 6).

   Every action is one call to the API with the driver's token, so the app obeys exactly
   the rules the API applies (dispatch.services.offers, dispatch.services.jobs,
   drivers.services). No framework: the page is drawn with DOM calls, text as text.

   A poor connection: each change is sent with an Idempotency-Key and retried with the
   same key (the server replays the first answer, never doing it twice); what still cannot
   be sent waits in a queue kept in localStorage and goes when the connection is back.
   Reads fall back to the last answer kept, and the page says it is offline.

   Position: while the driver is online the phone's position goes to /v1/driver/location
   every 30 s (so dispatch keeps seeing them), every 5 s while a job is live. */
(function () {
  "use strict";

  var root = document.getElementById("driver-app");
  var URLS = root.dataset;
  var STORE = "dtd-driver-app";
  var POLL_MS = 5000;
  var EARNINGS_MS = 60000;
  var POSITION_IDLE_MS = 30000;
  var POSITION_LIVE_MS = 5000;
  var TIMEOUT_MS = 10000;
  var RETRIES = 3;
  var LIVE = ["accepted", "en_route", "arrived", "on_board"];
  var SETTLEMENT_METHOD = {
    cash_to_driver: "cash", card_to_driver: "card", direct_to_driver: "payment_link",
    account: "account", bank_transfer: "bank_transfer"
  };
  var METHODS = [["cash", "Cash"], ["card", "Card"], ["payment_link", "Payment link"],
    ["bank_transfer", "Bank transfer"], ["account", "Account"]];

  // --- what the app remembers (localStorage): token, last answers, pending changes ------
  var state = load();
  function load() {
    try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (e) { return {}; }
  }
  function save() {
    try { localStorage.setItem(STORE, JSON.stringify(state)); } catch (e) { /* private mode */ }
  }
  state.pending = state.pending || [];
  state.toSettle = state.toSettle || {};
  state.settleKeys = state.settleKeys || {};

  // --- small DOM helpers ------------------------------------------------------------------
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "on") Object.keys(attrs.on).forEach(function (ev) { node.addEventListener(ev, attrs.on[ev]); });
      else if (attrs[key] !== null && attrs[key] !== undefined && attrs[key] !== false) node.setAttribute(key, attrs[key]);
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  // Redraw a section only when what it shows has changed, keeping what the driver is
  // typing (a pickup code, an amount): the feed is polled every few seconds.
  var drawn = {};
  function redraw(box, shown, paint) {
    var signature = JSON.stringify(shown);
    if (drawn[box.id] === signature) return false;
    drawn[box.id] = signature;
    var typed = {};
    box.querySelectorAll("input[id], select[id]").forEach(function (field) { typed[field.id] = field.value; });
    var focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.id : null;
    box.replaceChildren();
    paint();
    Object.keys(typed).forEach(function (id) {
      var field = document.getElementById(id);
      if (field && box.contains(field)) field.value = typed[id];
    });
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    return true;
  }
  function money(value) { return "£" + Number(value).toFixed(2); }
  function ukTime(iso) {
    return new Date(iso).toLocaleString("en-GB", {
      timeZone: "Europe/London", weekday: "short", day: "numeric", month: "short",
      hour: "2-digit", minute: "2-digit"
    });
  }
  function say(text, kind) {
    var node = $("app-message");
    node.textContent = text;
    node.className = "notice " + (kind || "ok");
    node.hidden = !text;
  }

  // --- the network ----------------------------------------------------------------------
  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "k" + Date.now().toString(36) + Math.random().toString(36).slice(2);
  }
  function setOnline(online) {
    $("offline-banner").hidden = online;
    $("connection").textContent = online ? "Connected" : "No connection";
    $("connection").className = "connection " + (online ? "up" : "down");
  }

  // One HTTP call with a timeout. Resolves {status, body}; rejects on no connection.
  function call(method, url, body, key) {
    var headers = { "Accept": "application/json" };
    if (state.token) headers.Authorization = "Token " + state.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    var abort = new AbortController();
    var timer = setTimeout(function () { abort.abort(); }, TIMEOUT_MS);
    return fetch(url, {
      method: method, headers: headers, signal: abort.signal, credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (response) {
      clearTimeout(timer);
      setOnline(true);
      return response.text().then(function (text) {
        var parsed = null;
        try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = null; }
        return { status: response.status, body: parsed };
      });
    }, function (error) {
      clearTimeout(timer);
      setOnline(false);
      throw error;
    });
  }

  function retryable(status) { return status === 429 || status === 503 || status >= 500; }

  // A change: retried with the same Idempotency-Key; queued if it still cannot be sent.
  function change(label, method, url, body, key) {
    key = key || newKey();
    var attempt = 0;
    function go() {
      return call(method, url, body, key).then(function (answer) {
        if (retryable(answer.status) && attempt < RETRIES) return later();
        return answer;
      }, function () {
        if (attempt < RETRIES) return later();
        state.pending.push({ label: label, method: method, url: url, body: body, key: key });
        save();
        drawPending();
        return { status: 0, body: null, queued: true };
      });
    }
    function later() {
      attempt += 1;
      return new Promise(function (resolve) { setTimeout(resolve, 1000 * Math.pow(2, attempt - 1)); }).then(go);
    }
    return go();
  }

  function flushPending() {
    if (!state.pending.length) return Promise.resolve();
    var item = state.pending[0];
    return call(item.method, item.url, item.body, item.key).then(function (answer) {
      state.pending.shift();
      save();
      drawPending();
      if (answer.status >= 400) say(item.label + ": " + problemText(answer), "bad");
      return flushPending();
    }, function () { /* still offline: keep it */ });
  }

  function problemText(answer) {
    var body = answer.body || {};
    var text = body.detail || body.title || ("The server answered " + answer.status + ".");
    if (body.errors) {
      Object.keys(body.errors).forEach(function (field) { text += " " + body.errors[field].join(" "); });
    }
    return text;
  }

  // ``ref``: the job the change was about; its card shows the refusal where the driver is.
  function after(answer, done, ref) {
    if (answer.queued) return;  // the banner lists what waits to be sent
    if (answer.status === 401) { signOut("Your session has ended: sign in again."); return; }
    if (answer.status >= 400) {
      say(problemText(answer), "bad");
      var card = ref && document.querySelector('article[data-job="' + ref + '"]');
      if (card) {
        var old = card.querySelector(".job-error");
        if (old) old.remove();
        card.appendChild(el("p", { "class": "notice bad job-error", role: "alert", text: problemText(answer) }));
      }
      return;
    }
    if (done) done(answer.body);
    refresh();
  }

  // --- position -------------------------------------------------------------------------
  var position = null;
  var watching = null;
  var positionSentAt = 0;
  function watchPosition() {
    if (watching !== null || !navigator.geolocation) return;
    watching = navigator.geolocation.watchPosition(function (p) {
      position = { lat: p.coords.latitude, lng: p.coords.longitude, heading: p.coords.heading };
      $("position-note").textContent = "";
      reportPosition(false);
    }, function (error) {
      navigator.geolocation.clearWatch(watching);
      watching = null;
      positionProblem(error);
    }, { enableHighAccuracy: true, maximumAge: 5000, timeout: 20000 });
  }
  // What to do when the phone gives no position, in words, with a button to try again.
  function locationWords(error) {
    if (error && error.code === 1) {
      return "Location is off for this app. Turn it on: in your browser's site settings " +
        "(the padlock beside the address) allow Location, and check the phone's own location " +
        "setting is on. Then tap Try again.";
    }
    return "Your phone could not find its position just now (no GPS signal or location is " +
      "switched off). Step outside or turn location on, then tap Try again.";
  }
  function positionProblem(error) {
    var note = $("position-note");
    note.replaceChildren(
      el("span", { "class": "location-off", text: locationWords(error) + " " }),
      el("button", { type: "button", "class": "secondary", id: "location-retry", on: { click: function () {
        note.replaceChildren(document.createTextNode("Looking for your position…"));
        position = null;
        watchPosition();
      } } }, "Try again"));
  }
  function currentPosition() {
    return new Promise(function (resolve, reject) {
      if (position) { resolve(position); return; }
      if (!navigator.geolocation) { reject(new Error("This phone gives no position.")); return; }
      navigator.geolocation.getCurrentPosition(function (p) {
        position = { lat: p.coords.latitude, lng: p.coords.longitude, heading: p.coords.heading };
        resolve(position);
      }, reject, { enableHighAccuracy: true, timeout: 20000 });
    });
  }
  function liveJob() {
    return ((state.feed || {}).results || []).some(function (item) { return !item.offerId && LIVE.indexOf(item.status) >= 0; });
  }
  // Sent straight to the position endpoint, never queued: an old position is no use.
  function reportPosition(force) {
    var driver = (state.feed || {}).driver || state.driver || {};
    if (!position || !state.token || (!driver.online && !liveJob())) return;
    var every = liveJob() ? POSITION_LIVE_MS : POSITION_IDLE_MS;
    if (!force && Date.now() - positionSentAt < every) return;
    positionSentAt = Date.now();
    var body = { lat: position.lat, lng: position.lng };
    if (typeof position.heading === "number" && !isNaN(position.heading)) body.heading = position.heading;
    call("POST", URLS.location, body).catch(function () { /* the next one will do */ });
  }

  // --- reading ----------------------------------------------------------------------------
  var polling = null;
  function refresh() {
    if (!state.token) return Promise.resolve();
    return call("GET", URLS.jobs).then(function (answer) {
      if (answer.status === 401) { signOut("Your session has ended: sign in again."); return; }
      if (answer.status === 200) {
        state.feed = answer.body;
        state.syncedAt = new Date().toISOString();
        save();
      }
      draw();
      flushPending();
      reportPosition(false);
    }, function () { draw(); });
  }
  var earningsAt = 0;
  function refreshEarnings(force) {
    if (!state.token || (!force && Date.now() - earningsAt < EARNINGS_MS)) return;
    earningsAt = Date.now();
    call("GET", URLS.earnings).then(function (answer) {
      if (answer.status === 200) { state.earnings = answer.body; save(); drawEarnings(); }
    }, function () { drawEarnings(); });
    call("GET", URLS.subscription).then(function (answer) {
      if (answer.status === 200) { state.subscription = answer.body; save(); drawSubscription(); }
    }, function () { drawSubscription(); });
    refreshTables();
  }
  function refreshTables() {
    call("GET", URLS.tables).then(function (answer) {
      if (answer.status !== 200) return;
      state.tables = answer.body.results;
      save();
      drawTables();
      var field = $("table-authority");
      var mine = (state.driver || {}).licensingAuthority;
      if (field && !field.value && mine && answer.body.authorities.indexOf(mine) >= 0) field.value = mine;
    }, function () { drawTables(); });
  }
  function startPolling() {
    if (polling) return;
    refresh();
    refreshEarnings(true);
    polling = setInterval(function () {
      if (document.visibilityState === "visible") { refresh(); refreshEarnings(false); }
    }, POLL_MS);
    setInterval(drawCountdowns, 1000);
  }

  // --- drawing ----------------------------------------------------------------------------
  function draw() {
    var signedIn = Boolean(state.token);
    $("sign-in").hidden = signedIn;
    $("signed-in").hidden = !signedIn;
    if (!signedIn) return;
    var driver = (state.feed || {}).driver || state.driver || {};
    $("driver-name").textContent = driver.name || "";
    $("availability").textContent = driver.online ? "Online: offers can come in" : "Offline: no offers";
    $("availability").className = "tag " + (driver.online ? "trial" : "suspended");
    var full = driver.currentJobs !== undefined && driver.currentJobs >= driver.maxJobs;
    $("load").textContent = driver.currentJobs === undefined ? "" : full
      ? "Full: " + driver.currentJobs + " of " + driver.maxJobs + " job(s) in hand, no new offers until one ends"
      : driver.currentJobs + " of " + driver.maxJobs + " job(s) in hand";
    $("load").className = full ? "tag full" : "muted";
    $("go-online").hidden = Boolean(driver.online);
    $("go-offline").hidden = !driver.online;
    var items = (state.feed || {}).results || [];
    drawOffers(items.filter(function (i) { return i.offerId; }));
    drawJobs(items.filter(function (i) { return !i.offerId; }));
    drawCancelled((state.feed || {}).cancelled || []);
    drawToSettle();
    drawPending();
    drawEarnings();
    drawSubscription();
    drawTables();
  }

  // A pickup time already past ("as soon as possible", or a passenger waiting) reads "Now".
  function pickupWhen(iso) {
    return new Date(iso) <= Date.now() ? "Now" : ukTime(iso);
  }
  function journey(item) {
    return el("p", { "class": "journey" },
      el("strong", { "class": "pickup-when", text: pickupWhen(item.pickupTime) }), " · ",
      item.pickup, " → ", item.dropoff);
  }

  function drawOffers(offers) {
    var box = $("offers");
    if (!redraw(box, offers, function () { paintOffers(box, offers); })) return;
    drawCountdowns();
  }
  function paintOffers(box, offers) {
    if (!offers.length) { box.appendChild(el("p", { "class": "muted", text: "No offers right now." })); return; }
    offers.forEach(function (item) {
      box.appendChild(el("article", { "class": "card offer", "data-offer": item.offerId },
        journey(item),
        el("p", {},
          item.passengers + " passenger(s), " + item.vehicleType + ". Fare " + money(item.fareGBP) +
          (item.deadMiles !== null ? ". " + item.deadMiles + " miles to the pickup." : ".")),
        item.notes ? el("p", { "class": "notes", text: "Notes: " + item.notes }) : null,
        el("p", { "class": "countdown", "data-expires": item.offerExpiresAt }),
        el("div", { "class": "actions" },
          el("button", { type: "button", "class": "accept", on: { click: function () { answerOffer(item, "accept"); } } }, "Accept"),
          el("button", { type: "button", "class": "secondary decline", on: { click: function () { answerOffer(item, "decline"); } } }, "Decline"))));
    });
  }

  function drawCountdowns() {
    Array.prototype.forEach.call(document.querySelectorAll(".countdown"), function (node) {
      var left = Math.round((new Date(node.dataset.expires) - Date.now()) / 1000);
      var card = node.closest(".offer");
      if (left <= 0) {
        node.textContent = "Time is up: this offer has gone to the next driver.";
        card.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      } else {
        node.textContent = "Answer within " + left + " s";
      }
    });
  }

  function mapsLink(lat, lng, address) {
    var destination = (lat !== null && lng !== null && lat !== undefined) ? lat + "," + lng : address;
    // Opens the phone's maps app (Google Maps, or the browser) with directions.
    return "https://www.google.com/maps/dir/?api=1&destination=" + encodeURIComponent(destination);
  }

  var NEXT = {
    accepted: [["en_route", "On my way"], ["arrived", "Arrived"]],
    en_route: [["arrived", "Arrived"]],
    arrived: [["on_board", "Passenger on board"], ["no_show", "No-show"]],
    on_board: [["completed", "Trip completed"]]
  };
  var STATUS_WORDS = {
    accepted: "Accepted", en_route: "On the way", arrived: "At the pickup",
    on_board: "Passenger on board", completed: "Completed", no_show: "No-show"
  };

  function drawJobs(jobs) {
    var box = $("jobs");
    redraw(box, jobs, function () { paintJobs(box, jobs); });
  }
  function paintJobs(box, jobs) {
    if (!jobs.length) { box.appendChild(el("p", { "class": "muted", text: "No jobs in hand." })); return; }
    jobs.forEach(function (item) {
      var toDropoff = item.status === "on_board";
      var card = el("article", { "class": "card job-card", "data-job": item.bookingReference, "data-status": item.status },
        el("p", {}, el("span", { "class": "tag", text: STATUS_WORDS[item.status] || item.status }), " ",
          el("span", { "class": "muted", text: item.bookingReference })),
        journey(item),
        item.passenger ? el("p", {}, item.passenger.name + " · ",
          el("a", { href: "tel:" + item.passenger.phone, text: item.passenger.phone })) : null,
        el("p", {}, "Fare " + money(item.fareGBP) + ", " + item.paymentMethod.replace(/_/g, " ") + "."),
        item.notes ? el("p", { "class": "notes", text: "Notes: " + item.notes }) : null,
        el("p", {}, el("a", {
          "class": "button secondary navigate", target: "_blank", rel: "noopener",
          href: toDropoff ? mapsLink(item.dropoffLat, item.dropoffLng, item.dropoff) : mapsLink(item.pickupLat, item.pickupLng, item.pickup)
        }, toDropoff ? "Navigate to the drop-off" : "Navigate to the pickup")));
      if (item.status === "arrived") {
        card.appendChild(el("p", {},
          el("label", { "for": "code-" + item.bookingReference, text: "Pickup code (the passenger tells you)" }),
          el("input", { id: "code-" + item.bookingReference, "class": "pickup-code", inputmode: "numeric", autocomplete: "off", maxlength: "4", pattern: "[0-9]{4}" })));
      }
      var actions = el("div", { "class": "actions" });
      (NEXT[item.status] || []).forEach(function (move) {
        actions.appendChild(el("button", {
          type: "button", "data-move": move[0], "class": move[0] === "no_show" ? "secondary" : null,
          on: { click: function () { moveJob(item, move[0]); } }
        }, move[1]));
      });
      card.appendChild(actions);
      if (item.status === "on_board") card.appendChild(paymentForm(item));
      box.appendChild(card);
    });
  }

  // Jobs cancelled under the driver (contract 3.1): shown, and said once when new, so a
  // job never just vanishes while an earlier "is yours" still shows.
  function drawCancelled(jobs) {
    var box = $("cancelled");
    var seen = state.cancelledSeen || (state.cancelledSeen = {});
    var fresh = jobs.filter(function (job) { return !seen[job.bookingReference]; });
    if (fresh.length) {
      fresh.forEach(function (job) { seen[job.bookingReference] = true; });
      save();
      say("Cancelled: " + fresh.map(function (j) { return j.bookingReference; }).join(", ") +
        ". Do not go to the pickup.", "bad");
    }
    redraw(box, jobs, function () {
      if (!jobs.length) return;
      box.appendChild(el("h2", { text: "Cancelled" }));
      jobs.forEach(function (job) {
        box.appendChild(el("article", { "class": "card job-card cancelled", "data-cancelled": job.bookingReference },
          el("p", {}, el("span", { "class": "tag suspended", text: "Cancelled" }), " ",
            el("span", { "class": "muted", text: job.bookingReference })),
          el("p", { "class": "journey" }, el("strong", { text: ukTime(job.pickupTime) }), " · ", job.pickup, " → ", job.dropoff),
          el("p", { text: "Cancelled " + ukTime(job.cancelledAt) + ". Do not go to the pickup." +
            (job.reason ? " Reason: " + job.reason : "") })));
      });
    });
  }

  function paymentForm(item) {
    var ref = item.bookingReference;
    var method = el("select", { id: "method-" + ref, name: "method" });
    METHODS.forEach(function (m) {
      method.appendChild(el("option", { value: m[0], selected: m[0] === (SETTLEMENT_METHOD[item.paymentMethod] || "cash") ? "selected" : null }, m[1]));
    });
    var form = el("form", { "class": "settle", "data-job": ref },
      el("h3", { text: "Record the payment" }),
      el("p", {}, el("label", { "for": "amount-" + ref, text: "Amount (£)" }),
        el("input", { id: "amount-" + ref, name: "amount", type: "number", step: "0.01", min: "0.01", inputmode: "decimal", value: Number(item.fareGBP).toFixed(2), required: "required" })),
      el("p", {}, el("label", { "for": "method-" + ref, text: "How you were paid" }), method),
      el("button", { type: "submit" }, "Record payment"));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      settle(item, form);
    });
    return form;
  }

  function drawToSettle() {
    var box = $("to-settle");
    redraw(box, state.toSettle, function () { paintToSettle(box); });
  }
  function paintToSettle(box) {
    var refs = Object.keys(state.toSettle);
    if (!refs.length) return;
    box.appendChild(el("h2", { text: "Finished: record the payment" }));
    refs.forEach(function (ref) {
      var item = state.toSettle[ref];
      var card = el("article", { "class": "card job-card", "data-job": ref, "data-status": "completed" },
        el("p", {}, el("span", { "class": "tag trial", text: "Completed" }), " ", el("span", { "class": "muted", text: ref })),
        journey(item),
        paymentForm(item),
        el("p", {}, el("button", { type: "button", "class": "secondary", on: { click: function () { delete state.toSettle[ref]; save(); draw(); } } }, "Nothing to record")));
      box.appendChild(card);
    });
  }

  function drawPending() {
    var node = $("offline-banner");
    if (state.pending.length) {
      node.hidden = false;
      node.textContent = "Waiting to send: " + state.pending.map(function (p) { return p.label; }).join(", ") + ". It goes as soon as the connection is back.";
    } else if (navigator.onLine !== false && $("connection").textContent !== "No connection") {
      node.hidden = true;
    }
  }

  function tile(label, value, id) {
    return el("div", { "class": "tile" }, el("span", { "class": "label", text: label }), el("span", { "class": "value", id: id, text: value }));
  }

  function drawEarnings() {
    var box = $("earnings");
    redraw(box, state.earnings || null, function () { paintEarnings(box, state.earnings); });
  }
  function paintEarnings(box, e) {
    if (!e) { box.appendChild(el("p", { "class": "muted", text: "Loading…" })); return; }
    box.appendChild(el("p", { "class": "muted", text: "What your payment records show you were paid, minus refunds. Weeks run Monday to Sunday." }));
    box.appendChild(el("h3", { text: "Today" }));
    box.appendChild(el("div", { "class": "tiles" },
      tile("Jobs", String(e.today.jobs), "today-jobs"),
      tile("Earnings", money(e.today.earningsGBP), "today-earnings"),
      tile("Dead mileage", e.today.deadMiles + " mi", "today-dead-miles")));
    box.appendChild(el("h3", { text: "This week" }));
    box.appendChild(el("div", { "class": "tiles" },
      tile("Jobs", String(e.thisWeek.jobs), "week-jobs"),
      tile("Earnings", money(e.thisWeek.earningsGBP), "week-earnings"),
      tile("Dead mileage", e.thisWeek.deadMiles + " mi", "week-dead-miles"),
      tile("Card fees", money(e.thisWeek.processorFeesGBP), "week-fees")));
    var list = el("ul", { "class": "plain", id: "week-jobs-list" });
    e.weekJobs.forEach(function (job) {
      list.appendChild(el("li", {}, el("strong", { text: money(job.earningsGBP) }), " · " + job.bookingReference + " · " + job.pickup + " → " + job.dropoff + " · " + job.deadMiles + " mi dead"));
    });
    if (e.weekJobs.length) box.appendChild(list);
    box.appendChild(el("h3", { text: "Weekly totals" }));
    var weeks = el("ul", { "class": "plain weeks", id: "weekly-totals" });
    e.weeks.forEach(function (week) {
      weeks.appendChild(el("li", { "data-week": week.start },
        el("span", { text: new Date(week.start + "T12:00:00Z").toLocaleDateString("en-GB", { day: "numeric", month: "short" }) }),
        el("span", { text: week.jobs + (week.jobs === 1 ? " job" : " jobs") }),
        el("strong", { text: money(week.earningsGBP) }),
        el("span", { text: week.deadMiles + " mi dead" })));
    });
    box.appendChild(weeks);
  }

  function drawSubscription() {
    var box = $("subscription");
    redraw(box, state.subscription || null, function () { paintSubscription(box, state.subscription); });
  }
  function paintSubscription(box, s) {
    if (!s) { box.appendChild(el("p", { "class": "muted", text: "Loading…" })); return; }
    var stage = { trial: "Free trial", billed: "Subscribed", paused: "Paused", cancelled: "Cancelled" }[s.stage] || s.stage;
    box.appendChild(el("p", {}, el("span", { "class": "tag " + s.stage, id: "subscription-stage", text: stage }),
      s.trialEndsAt ? " until " + ukTime(s.trialEndsAt) : ""));
    box.appendChild(el("p", { text: "Weekly fee " + money(s.weeklyFeeGBP) + "; a week in which you earn under " + money(s.freeBelowGBP) + " is free." }));
    if (s.currentWeek) {
      box.appendChild(el("p", { text: "This week so far: earned " + money(s.currentWeek.earningsGBP) + ", fee due " + money(s.currentWeek.feeDueGBP) + "." }));
    }
    if (s.invoices && s.invoices.length) {
      var list = el("ul", { "class": "plain" });
      s.invoices.forEach(function (inv) {
        list.appendChild(el("li", {}, el("a", { href: inv.url, text: inv.number }), " · week of " + inv.weekStart + " · " + money(inv.totalGBP) + " · " + inv.status));
      });
      box.appendChild(list);
    }
  }

  var TABLE_STATUS = {
    pending: "Waiting for a staff check", checked: "Checked; waiting for a second staff member's approval",
    approved: "Approved: it prices journeys now", rejected: "Not approved"
  };
  function drawTables() {
    var box = $("table-submissions");
    redraw(box, state.tables || [], function () {
      (state.tables || []).forEach(function (t) {
        box.appendChild(el("li", { "data-status": t.status, "data-id": String(t.id) },
          el("strong", { text: t.authority }), ", in force from " + t.effectiveFrom + ": " + (TABLE_STATUS[t.status] || t.status),
          t.rejectionReason ? el("span", { "class": "why", text: ". Why: " + t.rejectionReason }) : null));
      });
    });
  }

  // The form's fields -> the API's figures and examples (the operator page posts the same
  // fields, read by pricing.submissions.figures.figures_from_form: keep the two alike).
  function tableFigures(form) {
    function v(name) { var f = form.elements[name]; return f ? String(f.value).trim() : ""; }
    var bands = [];
    form.querySelectorAll("fieldset.table-band").forEach(function (set) {
      var i = set.dataset.band;
      if (!v("band" + i + "_name")) return;
      bands.push({
        name: v("band" + i + "_name"),
        days: Array.prototype.filter.call(set.querySelectorAll('input[name="band' + i + '_days"]'), function (c) { return c.checked; }).map(function (c) { return c.value; }),
        start: v("band" + i + "_start") || null, end: v("band" + i + "_end") || null,
        publicHolidays: Boolean(set.querySelector('input[name="band' + i + '_holidays"]:checked')),
        flagFallGBP: v("band" + i + "_flag_fall"), flagFallDistance: v("band" + i + "_flag_distance"),
        incrementPriceGBP: v("band" + i + "_increment_price"), incrementDistance: v("band" + i + "_increment_distance"),
        waitingSecondsPerIncrement: v("band" + i + "_waiting_seconds")
      });
    });
    var extras = [], examples = [];
    for (var i = 1; form.elements["extra" + i + "_name"]; i++) {
      if (v("extra" + i + "_name")) extras.push({ name: v("extra" + i + "_name"), amountGBP: v("extra" + i + "_amount") });
    }
    for (var j = 1; form.elements["example" + j + "_miles"]; j++) {
      if (v("example" + j + "_miles")) examples.push({ miles: v("example" + j + "_miles"), fareGBP: v("example" + j + "_fare"), band: v("example" + j + "_band") || null });
    }
    return { figures: { distanceUnit: v("distance_unit") || "m", bands: bands, extras: extras }, examples: examples };
  }

  function sendTable(event) {
    event.preventDefault();
    say("");
    var form = event.target;
    var parts = tableFigures(form);
    var body = new FormData();
    body.append("authority", form.elements.authority.value);
    body.append("effectiveFrom", form.elements.effective_from.value);
    body.append("figures", JSON.stringify(parts.figures));
    body.append("examples", JSON.stringify(parts.examples));
    if (form.elements.photo.files[0]) body.append("photo", form.elements.photo.files[0]);
    $("table-send").disabled = true;
    // A file is not queued offline: the driver sends it again with a connection (the same
    // file from the same driver is one table, however often it is sent).
    fetch(URLS.tables, {
      method: "POST", body: body, credentials: "omit",
      headers: { "Accept": "application/json", "Authorization": "Token " + state.token }
    }).then(function (response) {
      setOnline(true);
      return response.text().then(function (text) {
        var parsed = null;
        try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = null; }
        return { status: response.status, body: parsed };
      });
    }).then(function (answer) {
      $("table-send").disabled = false;
      if (answer.status === 401) { signOut("Your session has ended: sign in again."); return; }
      if (answer.status >= 400) { say(problemText(answer), "bad"); return; }
      form.reset();
      $("table-details").open = false;
      say("Table sent for " + answer.body.authority + ": staff check it against your photo.", "ok");
      refreshTables();
    }, function () {
      $("table-send").disabled = false;
      setOnline(false);
      say("No connection: send the table again once you have one.", "bad");
    });
  }

  // --- actions ----------------------------------------------------------------------------
  function answerOffer(item, verb) {
    say("");
    var url = URLS.offer.replace("/0/accept", "/" + item.offerId + "/" + verb);
    change(verb === "accept" ? "accept " + item.bookingReference : "decline " + item.bookingReference, "POST", url, {})
      .then(function (answer) {
        after(answer, function () {
          say(verb === "accept" ? "Job " + item.bookingReference + " is yours." : "Declined.", "ok");
        });
      });
  }

  function moveJob(item, status) {
    say("");
    var body = { status: status };
    if (status === "on_board") {
      var code = ($("code-" + item.bookingReference) || {}).value || "";
      if (!/^[0-9]{4}$/.test(code.trim())) { say("Ask the passenger for their 4-digit pickup code and type it in.", "bad"); return; }
      body.pickupCode = code.trim();
    }
    if (status === "no_show" && !window.confirm("Record a no-show? Only once the free waiting is over, at the pickup.")) return;
    var send = function () {
      if (position) { body.lat = position.lat; body.lng = position.lng; }
      var url = URLS.job.replace("REF", encodeURIComponent(item.bookingReference));
      return change(STATUS_WORDS[status] + " " + item.bookingReference, "POST", url, body).then(function (answer) {
        after(answer, function () {
          if (status === "completed") {
            state.toSettle[item.bookingReference] = item;
            save();
          }
          say(item.bookingReference + ": " + STATUS_WORDS[status] + ".", "ok");
        }, item.bookingReference);
      });
    };
    // arrived and no-show are judged against where the car is: ask for a fresh position.
    if ((status === "arrived" || status === "no_show") && !position) {
      currentPosition().then(send, send);
    } else {
      send();
    }
  }

  function settle(item, form) {
    say("");
    var ref = item.bookingReference;
    var amount = form.querySelector("[name=amount]").value;
    var body = {
      amountGBP: Number(amount),
      method: form.querySelector("[name=method]").value,
      // The same reference twice is recorded once (dispatch.services.jobs.driver_job_settle):
      // kept until this payment is recorded, so a retry never records it twice.
      reference: "app-" + ref + "-" + (state.settleKeys[ref] || (state.settleKeys[ref] = newKey())).slice(0, 12)
    };
    save();
    var url = URLS.job.replace("REF", encodeURIComponent(ref)).replace(/status$/, "settlement");
    change("payment for " + ref, "POST", url, body).then(function (answer) {
      after(answer, function (result) {
        delete state.toSettle[ref];
        delete state.settleKeys[ref];
        save();
        say(money(amount) + " recorded for " + ref + " (" + result.paymentState.replace("_", " ") + ").", "ok");
        refreshEarnings(true);
      }, ref);
    });
  }

  function setAvailability(online) {
    say("");
    var send = function (pos) {
      var body = { online: online };
      if (pos) { body.lat = pos.lat; body.lng = pos.lng; }
      return change(online ? "go online" : "go offline", "POST", URLS.availability, body).then(function (answer) {
        after(answer, function () { if (online) watchPosition(); });
      });
    };
    if (!online) { send(position); return; }
    currentPosition().then(send, function (error) {
      say("Going online needs your position.", "bad");
      positionProblem(error);
    });
  }

  function signIn(event) {
    event.preventDefault();
    say("");
    call("POST", URLS.login, { username: $("username").value, password: $("password").value }).then(function (answer) {
      if (answer.status !== 200) { say(problemText(answer), "bad"); return; }
      state = { token: answer.body.token, driver: answer.body.driver, pending: [], toSettle: {}, settleKeys: {} };
      save();
      $("password").value = "";
      draw();
      startPolling();
      if (answer.body.driver.online) watchPosition();
    }, function () { say("No connection: signing in needs one.", "bad"); });
  }

  function signOut(message) {
    state = { pending: [], toSettle: {}, settleKeys: {} };
    save();
    draw();
    if (message) say(message, "warn");
  }

  // --- start --------------------------------------------------------------------------------
  $("sign-in-form").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", function () { signOut(""); });
  $("table-form").addEventListener("submit", sendTable);
  $("go-online").addEventListener("click", function () { setAvailability(true); });
  $("go-offline").addEventListener("click", function () { setAvailability(false); });
  window.addEventListener("online", function () { setOnline(true); flushPending(); refresh(); });
  window.addEventListener("offline", function () { setOnline(false); });
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(URLS.sw).catch(function () { /* the app works without it */ });
  }
  setOnline(navigator.onLine !== false);
  draw();
  if (state.token) {
    startPolling();
    watchPosition();
  }
})();
