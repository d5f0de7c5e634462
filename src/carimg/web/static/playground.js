// The playground: a catalog combobox (GET /api/v1/vehicles?q=), the option controls, a free
// preview from the embed endpoint (the page's playground cookie pays for it) and the API calls
// for the same choices. No build step, no dependencies.
(() => {
  "use strict";
  const form = document.getElementById("playground");
  if (!form) return;
  const $ = (id) => document.getElementById(id);
  const input = $("vehicle");
  const listbox = $("vehicle-options");
  const yearSelect = $("year");
  const preview = $("preview");
  const frame = $("preview-frame");
  const status = $("preview-status");
  const caption = $("preview-caption");
  const baseUrl = form.dataset.baseUrl;
  const embedPath = form.dataset.embedPath;

  // The chosen vehicle: slugs for the URLs, a display name for the input.
  const vehicle = {
    make: form.dataset.make || "",
    model: form.dataset.model || "",
    name: form.dataset.name || "",
  };

  for (const swatch of form.querySelectorAll(".paint-chip[data-hex]")) {
    swatch.style.backgroundColor = swatch.dataset.hex; // CSSOM, allowed by the page's CSP
  }

  // ---- choices -> URLs ---------------------------------------------------------------------

  function whole(value, low, high) {
    const number = Number.parseInt(value, 10);
    return Number.isInteger(number) && number >= low && number <= high ? number : null;
  }

  function choices() {
    const paint = form.querySelector("input[name=paint]:checked").value;
    let background = $("background").value;
    if (background === "custom") background = $("background-hex").value;
    const trim = $("trim").checked;
    return {
      make: vehicle.make,
      model: vehicle.model,
      year: yearSelect.value,
      view: $("view").value,
      color: paint === "custom" ? $("paint-hex").value.toLowerCase() : paint,
      finish: $("finish").value,
      size: $("size").value,
      width: whole($("width").value, 1, 1024),
      height: whole($("height").value, 1, 1024),
      format: $("format").value,
      fit: $("fit").value,
      background,
      trim,
      padding: trim ? whole($("padding").value, 0, 50) : null,
      reflection: $("reflection").checked && reflects(background, $("format").value),
    };
  }

  // A reflection lies on the background: JPG always has one (white unless another is chosen).
  function reflects(background, format) {
    return Boolean(background) || format === "jpg";
  }

  function boxed(c) {
    return c.width !== null || c.height !== null;
  }

  // The embed endpoint's canonical spelling (brand, w, h), so the preview is never redirected.
  function previewUrl(c) {
    const query = new URLSearchParams({
      brand: c.make, model: c.model, year: c.year, view: c.view, color: c.color,
    });
    if (c.finish) query.set("finish", c.finish);
    if (c.width !== null) query.set("w", c.width);
    if (c.height !== null) query.set("h", c.height);
    if (!boxed(c)) query.set("size", c.size);
    query.set("format", c.format);
    return `${embedPath}?${query}`;
  }

  // The versioned API's parameters for the same image, framing included.
  function apiParams(c) {
    const params = [["make", c.make], ["model", c.model], ["year", Number(c.year)],
      ["view", c.view], ["color", c.color]];
    if (c.finish) params.push(["finish", c.finish]);
    if (c.width !== null) params.push(["width", c.width]);
    if (c.height !== null) params.push(["height", c.height]);
    if (!boxed(c)) params.push(["size", c.size]);
    if (boxed(c) && c.fit !== "contain") params.push(["fit", c.fit]);
    if (c.background) params.push(["background", c.background]);
    if (c.reflection) params.push(["reflection", true]);
    if (c.trim) {
      params.push(["trim", true]);
      if (c.padding !== null) params.push(["padding", c.padding]);
    }
    params.push(["format", c.format]);
    return params;
  }

  function curlCommand(c) {
    const query = new URLSearchParams(apiParams(c).map(([name, value]) => [
      name === "width" ? "w" : name === "height" ? "h" : name, String(value),
    ]));
    return `curl -H "Authorization: Bearer $CAR_IMAGE_API_KEY" \\\n` +
      `  -o car.${c.format} "${baseUrl}/api/v1/images/car?${query}"`;
  }

  function mintCommand(c) {
    const body = JSON.stringify(Object.fromEntries(apiParams(c)));
    return `curl -X POST "${baseUrl}/api/v1/image-urls" \\\n` +
      `  -H "Authorization: Bearer $CAR_IMAGE_API_KEY" \\\n` +
      `  -H "Content-Type: application/json" \\\n` +
      `  -d '${body}'`;
  }

  function describe(c) {
    const view = $("view").selectedOptions[0].textContent.trim().toLowerCase();
    let paint = c.color.startsWith("#") ? `paint ${c.color}` : c.color;
    if (c.finish) paint = `${c.finish} ${paint}`;
    return `${c.year} ${vehicle.name}, ${view} view, ${paint}`;
  }

  function imgTag(c) {
    const size = c.width || (boxed(c) ? null : $("size").selectedOptions[0].dataset.pixels);
    const dims = (size ? ` width="${size}"` : "") + (c.height ? ` height="${c.height}"` : "");
    const alt = describe(c).replaceAll('"', "&quot;");
    return `<img src="SIGNED_URL_FROM_THE_RESPONSE" alt="${alt}"${dims} loading="lazy">`;
  }

  // ---- preview -----------------------------------------------------------------------------

  let pending = null;
  let shownUrl = null;
  let objectUrl = null;

  async function showPreview() {
    const c = choices();
    $("curl").textContent = curlCommand(c);
    $("mint").textContent = mintCommand(c);
    $("img-tag").textContent = imgTag(c);
    if (!c.make || !c.model) return;
    const url = previewUrl(c);
    if (url === shownUrl) return;
    if (pending) pending.abort();
    const controller = new AbortController();
    pending = controller;
    frame.setAttribute("aria-busy", "true");
    status.textContent = "Rendering…";
    try {
      const response = await fetch(url, { signal: controller.signal, credentials: "same-origin" });
      if (!response.ok) {
        let detail = `The preview failed (HTTP ${response.status}).`;
        if ((response.headers.get("content-type") || "").includes("json")) {
          detail = (await response.json()).detail || detail;
        }
        if (response.status === 401) detail += " Reload the page to start a new playground session.";
        status.textContent = detail;
        status.classList.add("error");
        return;
      }
      const blob = await response.blob();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(blob);
      preview.src = objectUrl;
      preview.alt = describe(c);
      preview.dataset.variant = url;
      shownUrl = url;
      const width = response.headers.get("x-image-width");
      const height = response.headers.get("x-image-height");
      caption.textContent = describe(c);
      status.classList.remove("error");
      status.textContent = `${width} × ${height} ${c.format.toUpperCase()}, ` +
        `${response.headers.get("x-image-source") === "generated" ? "rendered just now" : "from the cache"}.`;
    } catch (error) {
      if (error.name === "AbortError") return;
      status.textContent = "The preview could not load; check the connection and try again.";
      status.classList.add("error");
    } finally {
      if (pending === controller) {
        pending = null;
        frame.setAttribute("aria-busy", "false");
      }
    }
  }

  let timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(showPreview, 250);
  }

  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("change", (event) => {
    if (event.target === input) return;
    if (event.target.id === "paint-hex") $("paint-custom").checked = true;
    $("background-hex").disabled = $("background").value !== "custom";
    $("reflection").disabled = !reflects($("background").value, $("format").value);
    $("padding").disabled = !$("trim").checked;
    schedule();
  });
  form.addEventListener("input", (event) => {
    if (event.target === input) return;
    if (event.target.id === "paint-hex") $("paint-custom").checked = true;
    schedule();
  });

  // ---- vehicle combobox (WAI-ARIA combobox with a listbox popup) -----------------------------

  let options = [];
  let active = -1;
  let searchTimer = null;
  let searching = null;

  function closeList() {
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function highlight(index) {
    const items = listbox.children;
    if (active >= 0 && items[active]) items[active].setAttribute("aria-selected", "false");
    active = index;
    if (index < 0 || !items[index]) {
      input.removeAttribute("aria-activedescendant");
      return;
    }
    items[index].setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", items[index].id);
    items[index].scrollIntoView({ block: "nearest" });
  }

  function yearsLabel(years) {
    return years.length ? `${years[0]}–${years[years.length - 1]}` : "";
  }

  function renderOptions(hits) {
    options = hits;
    listbox.replaceChildren();
    hits.forEach((hit, index) => {
      const item = document.createElement("li");
      item.id = `vehicle-option-${index}`;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      const name = document.createElement("span");
      name.textContent = hit.kind === "make" ? `${hit.make_name} — all models` : `${hit.make_name} ${hit.model_name}`;
      const years = document.createElement("span");
      years.className = "years";
      years.textContent = yearsLabel(hit.years);
      item.append(name, years);
      item.addEventListener("mousedown", (event) => event.preventDefault()); // keep focus
      item.addEventListener("click", () => choose(index));
      listbox.append(item);
    });
    if (!hits.length) {
      const empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = "No vehicle matches.";
      listbox.append(empty);
    }
    listbox.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
    if (hits.length) highlight(0);
  }

  async function search(text) {
    if (searching) searching.abort();
    const controller = new AbortController();
    searching = controller;
    try {
      const query = new URLSearchParams({ q: text, limit: "8" });
      const response = await fetch(`/api/v1/vehicles?${query}`, { signal: controller.signal });
      if (!response.ok) {
        renderOptions([]);
        return;
      }
      const body = await response.json();
      if (input.value.trim() === text) renderOptions(body.data.results || []);
    } catch (error) {
      if (error.name !== "AbortError") closeList();
    }
  }

  function setYears(years, keep) {
    const chosen = years.includes(Number(keep)) ? Number(keep) : years[years.length - 1];
    yearSelect.replaceChildren(...[...years].reverse().map((year) => {
      const option = document.createElement("option");
      option.value = option.textContent = String(year);
      option.selected = year === chosen;
      return option;
    }));
  }

  function choose(index) {
    const hit = options[index];
    if (!hit) return;
    if (hit.kind === "make") {
      // A make narrows the search to its models.
      input.value = `${hit.make_name} `;
      search(input.value.trim());
      input.focus();
      return;
    }
    vehicle.make = hit.make_slug;
    vehicle.model = hit.model_slug;
    vehicle.name = `${hit.make_name} ${hit.model_name}`;
    input.value = vehicle.name;
    setYears(hit.years, yearSelect.value);
    closeList();
    schedule();
  }

  input.addEventListener("input", () => {
    clearTimeout(searchTimer);
    const text = input.value.trim();
    if (!text) {
      closeList();
      return;
    }
    searchTimer = setTimeout(() => search(text), 200);
  });

  input.addEventListener("keydown", (event) => {
    const open = !listbox.hidden;
    if (event.key === "ArrowDown") {
      event.preventDefault();
      if (!open && input.value.trim()) search(input.value.trim());
      else if (options.length) highlight(Math.min(active + 1, options.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      if (options.length) highlight(Math.max(active - 1, 0));
    } else if (event.key === "Enter") {
      if (open && active >= 0) {
        event.preventDefault();
        choose(active);
      }
    } else if (event.key === "Escape") {
      if (open) {
        event.preventDefault();
        closeList();
      } else {
        input.value = vehicle.name;
      }
    }
  });

  input.addEventListener("blur", () => {
    closeList();
    if (vehicle.name) input.value = vehicle.name;
  });

  showPreview();
})();
