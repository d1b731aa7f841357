"use strict";
/*
 * The DG stepper: replays one recorded graph, step by step.
 *
 *   Forward   each step is one op, in the order the program recorded it: the line that ran is
 *             highlighted in the source and the node it made in the graph, with its value.
 *   Static    (when the graph holds a call of static(f)) each step is one line of the code the
 *             call runs as, as `dg static` lists it: the line is highlighted beside the graph, and so
 *             are the nodes it made, the guard it checks, or the node whose rule it runs.
 *   Backward  step 0 seeds the output; each step after it is one rule of the backward pass
 *             (numbered as `dg --trace` numbers them): the gradient g arriving at the node, the
 *             rule and the numbers it sent to each input, and what each leaf has received so
 *             far; the last step adds what each leaf received into its .grad. Done is grey.
 *
 * Everything is in this page: the data (the JSON in #dg-data, written by
 * interpreter/seeing/stepper.py), the graph as Graphviz laid it out (an SVG whose nodes have the
 * ids n1, n2, ... and whose edges e<node>_<input>), and the program's source. Nothing is fetched.
 * No framework: each step computes the class every node and edge should have and changes only
 * those that differ, so a graph of a few thousand nodes still steps at once.
 */
(function () {
  const data = JSON.parse(document.getElementById("dg-data").textContent);
  const panel = document.getElementById("graph-panel");
  const svg = panel.querySelector("svg");
  const info = document.getElementById("info");
  const slider = document.getElementById("slider");
  const positionText = document.getElementById("position");
  const buttons = {
    forward: document.getElementById("mode-forward"),
    backward: document.getElementById("mode-backward"),
    static: document.getElementById("mode-static"),
    first: document.getElementById("first"),
    prev: document.getElementById("prev"),
    next: document.getElementById("next"),
    last: document.getElementById("last"),
  };

  const nodes = new Map(data.nodes.map((n) => [n.id, n]));
  const elements = new Map(); // id of a node or edge -> its <g> in the SVG
  const copies = new Map(); // id of a much-used leaf -> the <g> of each copy drawn beside a use
  const applied = new Map(); // id -> the classes it has now, so a step changes only what differs
  const backward = data.backward;
  const isOp = (node) => ["op", "output", "collapsed", "call"].includes(node.kind);

  const state = { mode: "forward", at: { forward: 0, backward: 0, static: 0 }, zoom: 1, line: null };
  // Every line of every static call's listing, in order: [call index, line index].
  const listed = data.static.flatMap((call, c) => call.lines.map((_, n) => [c, n]));

  // ---- when each thing happens, worked out once ------------------------------------------------
  const madeAt = new Map(); // node id -> index of the forward step that made it
  data.forward.forEach((step, i) => {
    if (!madeAt.has(step.node)) madeAt.set(step.node, i);
  });
  const firstStep = new Map(); // node id -> position (1, 2, ...) of its first backward step
  const lastStep = new Map(); // node id -> position of its last one (a collapsed node has many)
  const firstReceived = new Map(); // leaf id -> position at which it first received a gradient
  const accumulating = new Set(backward ? backward.accumulate.map((a) => a.id) : []); // leaves whose .grad grows
  if (backward) {
    backward.steps.forEach((step, i) => {
      const position = i + 1;
      if (!firstStep.has(step.node)) firstStep.set(step.node, position);
      lastStep.set(step.node, position);
      for (const leaf of step.leaves) {
        if (!firstReceived.has(leaf.id)) firstReceived.set(leaf.id, position);
      }
    });
  }

  // ---- setting up ------------------------------------------------------------------------------
  function setUp() {
    for (const node of data.nodes) {
      copies.set(node.id, node.copies.map((id) => document.getElementById(id)).filter((g) => g));
      const g = document.getElementById(node.id);
      if (!g) continue;
      elements.set(node.id, g);
      if (node.kind === "call") {
        // A function's box opens by clicking (or Enter on it): its nodes, listed in the panel.
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.addEventListener("click", () => openBox(node));
        g.addEventListener("keydown", (event) => {
          if (event.key === "Enter") openBox(node);
        });
      }
      applied.set(node.id, "");
      // The last lines of a node's label tell the pass drawn: shown only once it has happened.
      const texts = g.querySelectorAll("text");
      for (let i = Math.max(texts.length - node.gradLines, 0); i < texts.length; i++) {
        texts[i].classList.add("gradient-line");
      }
    }
    for (const edge of data.edges) {
      const g = document.getElementById(edge.id);
      if (!g) continue;
      elements.set(edge.id, g);
      applied.set(edge.id, "");
      const texts = g.querySelectorAll("text"); // the rule's line, then one line per number
      for (let i = Math.max(texts.length - edge.numberLines, 1); i < texts.length; i++) {
        texts[i].classList.add("number-line");
      }
    }
    for (const call of data.static) {
      for (const id of Object.keys(call.guards)) {
        const g = document.getElementById(id);
        if (g) {
          elements.set(id, g);
          applied.set(id, "");
        }
      }
    }
    if (listed.length) {
      buttons.static.hidden = false;
      buttons.static.addEventListener("click", () => setMode("static"));
    }
    if (!backward) {
      buttons.backward.disabled = true;
      buttons.backward.title = "This graph was not backpropagated: there is no backward pass to replay";
    }
    buttons.forward.addEventListener("click", () => setMode("forward"));
    buttons.backward.addEventListener("click", () => setMode("backward"));
    buttons.first.addEventListener("click", () => go(0));
    buttons.prev.addEventListener("click", () => go(here() - 1));
    buttons.next.addEventListener("click", () => go(here() + 1));
    buttons.last.addEventListener("click", () => go(lastPosition()));
    slider.addEventListener("input", () => go(Number(slider.value)));
    document.getElementById("zoom-in").addEventListener("click", () => zoom(state.zoom * 1.25));
    document.getElementById("zoom-out").addEventListener("click", () => zoom(state.zoom / 1.25));
    document.getElementById("zoom-fit").addEventListener("click", fit);
    document.addEventListener("keydown", onKey);
    fit();
    show();
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const onSlider = event.target === slider; // the slider moves itself with the arrow keys
    const moves = {
      ArrowRight: () => go(here() + 1),
      ArrowLeft: () => go(here() - 1),
      PageDown: () => go(here() + 10),
      PageUp: () => go(here() - 10),
      Home: () => go(0),
      End: () => go(lastPosition()),
      f: () => setMode("forward"),
      b: () => setMode("backward"),
      s: () => setMode("static"),
      "+": () => zoom(state.zoom * 1.25),
      "-": () => zoom(state.zoom / 1.25),
      0: fit,
    };
    const move = moves[event.key];
    if (!move || (onSlider && event.key.length > 1)) return;
    event.preventDefault();
    move();
  }

  // ---- moving ----------------------------------------------------------------------------------
  function here() {
    return state.at[state.mode];
  }

  function lastPosition() {
    if (state.mode === "forward") return data.forward.length;
    if (state.mode === "static") return listed.length;
    return backward ? backward.steps.length + 1 : 0;
  }

  function go(position) {
    state.at[state.mode] = Math.max(0, Math.min(lastPosition(), position));
    show();
  }

  function setMode(mode) {
    if ((mode === "backward" && !backward) || (mode === "static" && !listed.length)) return;
    state.mode = mode;
    for (const name of ["forward", "backward", "static"]) {
      buttons[name].setAttribute("aria-pressed", String(mode === name));
    }
    document.getElementById("source-panel").hidden = mode === "static";
    document.getElementById("listing-panel").hidden = mode !== "static";
    show();
  }

  function show() {
    const position = here();
    const last = lastPosition();
    slider.max = String(last);
    slider.value = String(position);
    buttons.first.disabled = buttons.prev.disabled = position === 0;
    buttons.next.disabled = buttons.last.disabled = position === last;
    const views = { forward: forwardView, backward: backwardView, static: staticView };
    const view = views[state.mode](position);
    for (const [id, g] of elements) {
      const classes = view.classes.get(id) || "";
      if (applied.get(id) !== classes) {
        const kind = id.startsWith("e") ? "edge " : "node ";
        g.setAttribute("class", kind + classes);
        for (const copy of copies.get(id) || []) copy.setAttribute("class", kind + classes);
        applied.set(id, classes);
      }
    }
    positionText.value = view.position;
    slider.setAttribute("aria-valuetext", view.position);
    info.replaceChildren(...view.info);
    highlightLine(view.lineId || (view.source >= 0 ? `s${view.source}-l${view.line}` : null));
    reveal();
  }

  function openBox(node) {
    info.replaceChildren(
      heading(`Inside [${node.number}] ${node.title}`),
      paragraph(`the ${node.inside.length} nodes this call made or alone used, from the output down:`),
      list(node.inside),
      paragraph("dg graph --open ", code(node.function), " draws them in the graph"),
    );
  }

  // ---- static: the generated code, line by line -------------------------------------------------
  function staticView(position) {
    const classes = new Map();
    if (position === 0) {
      return {
        classes,
        position: `before line 1 of ${listed.length}`,
        info: [
          heading("Static: the code each static call runs as"),
          paragraph(
            "Each step is one line of a trace's listing, as dg static prints it: the ops it runs " +
              "(their nodes are highlighted), the guards it checks (the diamonds), and the backward rules.",
          ),
        ],
      };
    }
    const [c, n] = listed[position - 1];
    const call = data.static[c];
    const row = call.lines[n];
    for (const id of row.nodes) classes.set(id, "current");
    const lines = [heading(`Static: line ${position} of ${listed.length}`), paragraph(call.title), paragraph(code(row.text.trim()))];
    const made = row.nodes.map((id) => nodes.get(id)).filter((node) => node);
    if (made.length && row.text.includes(".backward(")) {
      lines.push(paragraph(`runs the rule of ${made.map((m) => `[${m.number}] ${m.title}`).join(", ")}`));
    } else if (made.length) {
      lines.push(paragraph(`made ${made.map((m) => `[${m.number}] ${m.title}: ${m.value}`).join(", ")}`));
    }
    if (row.guard && call.guards[row.guard]) {
      classes.set(row.guard, "current");
      lines.push(paragraph(call.guards[row.guard].text), paragraph(`on failure: ${call.guards[row.guard].retrace}`));
    }
    return { classes, position: `line ${position} of ${listed.length}`, info: lines, lineId: `c${c}-l${n}` };
  }

  // ---- forward: the recording ------------------------------------------------------------------
  function forwardView(position) {
    const current = position > 0 ? data.forward[position - 1] : null;
    const classes = new Map();
    for (const node of data.nodes) {
      if (!isOp(node)) continue; // leaves exist before the first op
      const made = madeAt.has(node.id) && madeAt.get(node.id) < position;
      if (!made) classes.set(node.id, "future");
      else if (current && current.node === node.id) classes.set(node.id, "current");
    }
    for (const edge of data.edges) {
      const target = classes.get(edge.to);
      if (target === "future") classes.set(edge.id, "future");
      else if (target === "current") classes.set(edge.id, "active");
    }
    const total = data.forward.length;
    if (!current) {
      const leaves = data.nodes.filter((n) => !isOp(n) && n.kind !== "constant");
      return {
        classes,
        position: `before record 1 of ${total}`,
        info: [
          heading("Forward: before the first op"),
          paragraph(
            "The program has made its leaves (data, and parameters that require grad); " +
              "each step below records one op, in the order it ran.",
          ),
          list(leaves.map((n) => `[${n.number}] ${n.title} ${n.shape}: ${n.value}`)),
        ],
      };
    }
    const made = current.made ? nodes.get(current.made) : null;
    const lines = [
      heading(`Forward: record ${position} of ${total}`),
      paragraph(`line ${current.line}: `, code(current.code)),
      paragraph(`made ${made ? `[${made.number}] ` : ""}${current.title}, shape ${current.shape}`),
      paragraph(`value ${current.value}`),
    ];
    if (!made) lines.push(paragraph(`(inside ${nodes.get(current.node).title})`));
    for (const when of current.when) lines.push(paragraph(when));
    if (current.call) lines.push(paragraph(`in ${current.call}`));
    return {
      classes,
      position: `record ${position} of ${total}`,
      info: lines,
      source: current.source,
      line: current.line,
    };
  }

  // ---- backward: the pass drawn ----------------------------------------------------------------
  function backwardView(position) {
    const steps = backward.steps;
    const classes = new Map();
    const end = steps.length + 1;
    const step = position >= 1 && position <= steps.length ? steps[position - 1] : null;
    for (const node of data.nodes) {
      const id = node.id;
      const parts = [];
      if (isOp(node)) {
        if (lastStep.has(id) && lastStep.get(id) < position) parts.push("done");
        if (firstStep.has(id) && firstStep.get(id) <= position) parts.push("show-gradient");
        if (step && step.node === id) parts.push("current");
        if (position === 0 && id === backward.root) parts.push("current");
      } else {
        if (firstReceived.has(id) && firstReceived.get(id) <= position) parts.push("received");
        if (position === end && accumulating.has(id)) parts.push("show-gradient", "current");
      }
      classes.set(id, parts.join(" "));
    }
    for (const edge of data.edges) {
      const parts = [];
      if (firstStep.has(edge.to) && firstStep.get(edge.to) <= position) parts.push("show-numbers");
      if (lastStep.has(edge.to) && lastStep.get(edge.to) < position) parts.push("done");
      classes.set(edge.id, parts.join(" "));
    }
    if (step) {
      for (const send of step.sends) if (send.edge) classes.set(send.edge, "show-numbers active");
    }
    if (position === 0) return backwardStart(classes);
    if (position === end) return backwardEnd(classes);
    return backwardStep(classes, step, position);
  }

  function backwardStart(classes) {
    const root = backward.root ? nodes.get(backward.root) : null;
    const lines = [
      heading("Backward: the pass begins"),
      paragraph(`line ${backward.line}: `, code(backward.code)),
    ];
    if (root) lines.push(paragraph(`[${root.number}] ${root.title} receives g = ${backward.seed} (d output / d output)`));
    if (backward.began) lines.push(paragraph(backward.began));
    lines.push(paragraph("Each step runs one op's rule: the gradient g arriving at it, times its local derivative, goes to each input."));
    return { classes, position: "start", info: lines, source: backward.source, line: backward.line };
  }

  function backwardStep(classes, step, position) {
    const node = nodes.get(step.node);
    const lines = [
      heading(`Backward: step ${step.number}`),
      paragraph(`line ${step.line}: `, code(step.code)),
      paragraph(`${step.title === node.title ? `[${node.number}] ` : ""}${step.title} receives g = ${step.g}`),
    ];
    if (step.title !== node.title) lines.push(paragraph(`(inside ${node.title})`));
    const sends = step.sends.map((send) =>
      send.gradient
        ? item(`${send.rule} `, numbers(send.numbers || ""), ` to ${send.to}`)
        : item(`${send.rule}: ${send.to} takes no gradient`),
    );
    if (sends.length) lines.push(paragraph("its rule sends:"), listOf(sends));
    if (step.leaves.length) {
      lines.push(paragraph("leaves so far:"));
      lines.push(list(step.leaves.map((leaf) => `${leaf.name} has received ${leaf.total}`)));
    }
    return {
      classes,
      position: `step ${step.number} (${position} of ${backward.steps.length})`,
      info: lines,
      source: step.source,
      line: step.line,
    };
  }

  function backwardEnd(classes) {
    const lines = [heading("Backward: into .grad")];
    if (backward.accumulate.length) {
      lines.push(paragraph("After the last step, each leaf adds what it received in this pass to its .grad:"));
      lines.push(list(backward.accumulate.map((a) => `${a.name}.grad += ${a.received}, now ${a.grad}`)));
    } else {
      lines.push(paragraph("This pass added nothing to any .grad (gradient() hands its results back instead)."));
    }
    return { classes, position: "into .grad", info: lines, source: backward.source, line: backward.line };
  }

  // ---- the source, the view ---------------------------------------------------------------------
  function highlightLine(id) {
    if (state.line) state.line.classList.remove("current");
    state.line = id ? document.getElementById(id) : null;
    if (state.line) {
      state.line.classList.add("current");
      state.line.scrollIntoView({ block: "nearest" });
    }
  }

  // Scroll the graph so that what this step is about (its node, the edges it sends along, the
  // leaves it fills) is in view; what is in view already stays where it is.
  function reveal() {
    const boxes = [...svg.querySelectorAll(".current, .active")].map((g) => g.getBoundingClientRect());
    if (!boxes.length) return;
    const box = {
      left: Math.min(...boxes.map((b) => b.left)),
      right: Math.max(...boxes.map((b) => b.right)),
      top: Math.min(...boxes.map((b) => b.top)),
      bottom: Math.max(...boxes.map((b) => b.bottom)),
    };
    const view = panel.getBoundingClientRect();
    const inside = box.left >= view.left && box.right <= view.right && box.top >= view.top && box.bottom <= view.bottom;
    if (!inside) {
      panel.scrollBy({
        left: (box.left + box.right) / 2 - (view.left + view.width / 2),
        top: (box.top + box.bottom) / 2 - (view.top + view.height / 2),
      });
    }
  }

  const natural = { width: svg.width.baseVal.value, height: svg.height.baseVal.value };

  function zoom(factor) {
    state.zoom = Math.max(0.05, Math.min(4, factor));
    svg.setAttribute("width", `${natural.width * state.zoom}px`);
    svg.setAttribute("height", `${natural.height * state.zoom}px`);
  }

  // The whole graph in the panel if it can still be read that small; else its natural size, and
  // each step scrolls to what it is about.
  function fit() {
    const whole = Math.min((panel.clientWidth - 20) / natural.width, (panel.clientHeight - 20) / natural.height);
    zoom(whole >= 0.6 ? Math.min(1.5, whole) : 1);
    reveal();
  }

  // ---- building the text of the info panel (text only: no program text is parsed as HTML) --------
  function heading(text) {
    const h = document.createElement("h2");
    h.textContent = text;
    return h;
  }

  function paragraph(...parts) {
    const p = document.createElement("p");
    p.append(...parts);
    return p;
  }

  function code(text) {
    const c = document.createElement("code");
    c.textContent = text;
    return c;
  }

  function numbers(text) {
    const span = document.createElement("span");
    span.className = "numbers";
    span.textContent = text;
    return span;
  }

  function item(...parts) {
    const li = document.createElement("li");
    li.append(...parts);
    return li;
  }

  function list(texts) {
    return listOf(texts.map((text) => item(text)));
  }

  function listOf(items) {
    const ul = document.createElement("ul");
    ul.append(...items);
    return ul;
  }

  setUp();
})();
