// The tracking page's live updates: every few seconds ask the page's data-live-url for the
// booking's state (the same dict the page was rendered from, bookings.selectors
// .booking_tracking_state) and redraw the status, the driver and the timeline when its
// version changes. Plain polling: it works behind any server, WSGI or ASGI.
(function () {
  "use strict";
  var root = document.getElementById("tracking");
  if (!root || !window.fetch) return;
  var url = root.getAttribute("data-live-url");
  var every = parseInt(root.getAttribute("data-poll-ms"), 10) || 4000;
  var version = root.getAttribute("data-version");

  function text(id, value) {
    var node = document.getElementById(id);
    if (node) node.textContent = value;
    return node;
  }

  function when(moment) {
    return moment ? moment.text + " UK time (" + moment.zone + ")" : "";
  }

  function driverWords(driver) {
    if (!driver) return "Not yet assigned. We will show your driver here as soon as one accepts.";
    var words = driver.name;
    var v = driver.vehicle;
    if (v) words += ": " + [v.colour, v.make, v.model].join(" ") + ", registration " + v.registration;
    return words + " (licensed by " + driver.licensingAuthority + ")";
  }

  function drawTimeline(steps) {
    var list = document.getElementById("timeline");
    if (!list) return;
    list.replaceChildren.apply(list, steps.map(function (step, i) {
      var item = document.createElement("li");
      if (i === steps.length - 1) item.className = "current";
      item.appendChild(document.createTextNode(step.words));
      var span = document.createElement("span");
      span.className = "when";
      var time = document.createElement("time");
      time.dateTime = step.at.iso;
      time.textContent = when(step.at);
      span.appendChild(time);
      item.appendChild(span);
      return item;
    }));
  }

  function draw(state) {
    var status = text("status", state.statusWords);
    if (status) status.setAttribute("data-status", state.status);
    text("driver", driverWords(state.driver));
    var payment = text("payment", state.payment.words);
    if (payment) payment.setAttribute("data-payment-state", state.payment.state);
    var pickup = text("pickup-time", when(state.pickupTime));
    if (pickup) pickup.dateTime = state.pickupTime.iso;
    drawTimeline(state.timeline);
    if (state.finished) text("live-note", "This booking is finished.");
    root.setAttribute("data-version", String(state.version));
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (state && String(state.version) !== version) {
          version = String(state.version);
          draw(state);
        }
        if (!state || !state.finished) setTimeout(poll, every);
      })
      .catch(function () { setTimeout(poll, every * 2); });
  }

  if (root.getAttribute("data-finished") !== "true") setTimeout(poll, every);
})();
