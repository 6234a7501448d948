-- SPDX-License-Identifier: MIT
-- tools/book/snippets.lua: the book's pandoc Lua filter (pandoc 2.17+), run by tools/book/build.
--
--  * A code block ```{.c snippet="ch01:velocity-update"}``` is replaced by the code between
--    `//> ch01:velocity-update` and `//< ch01:velocity-update` in the compiled sources of this
--    edition (lib/ and solutions/ for the instructor, lib/ and exercises/ for the student), with
--    a caption naming the file and line. An unknown snippet name stops the build.
--  * The block's body is the algorithm in pseudo-code, shown above the code in a box of its own.
--    A snippet that holds an exercise region (its `exercises` are named in the table: a stub in
--    the student edition) must have one, at most PSEUDO_WIDTH characters a line; the student
--    edition shows the algorithm and where the student writes it instead of the stub, the
--    instructor edition the algorithm and then the solution. The build fails, naming every such
--    block of the chapter, when one is empty (the raw README would show an empty fence there).
--  * Every snippet used is recorded (metadata `used_file`) so the build can fail on snippets
--    that no chapter shows.
--  * Links to another chapter's README.md point to its page; other relative links and images
--    point into the source tree (metadata `src_prefix`), figures are copied by the build.
--  * A code block ```{.text include="bench/results/x.txt"}``` shows a committed result file (or
--    the part between its `from` and `to` lines): measured tables regenerate with the book. With
--    format="csv" the lines become a table (lines starting with # become notes under it),
--    format="markdown" they are read as Markdown (its tables rendered), format="table" each run
--    of column-aligned lines becomes a table and the other lines text; `drop` (a Lua pattern)
--    removes text a reader does not need (the goals a benchmark prints for its developers).
--  * The chapter's generated "Tests and demos" section (metadata `extras_file`, Markdown) is
--    appended at the end.
--
-- Metadata (set by tools/book/build with -M): snippets_file (a Lua file returning the table
-- name -> {file=, line=, kind=, exercises=, code=}), used_file, extras_file, chapter (e.g. ch01), src_prefix,
-- figure_prefix, edition, root (the repository, for included files).

local snippets = nil
local meta_cfg = {}
local used = {}
local missing = {} -- exercise snippets without pseudo-code, reported together at the end

local function fail(msg)
  io.stderr:write("book: " .. msg .. "\n")
  os.exit(1)
end

local function str(v)
  if v == nil then return nil end
  return pandoc.utils.stringify(v)
end

local function read_meta(m)
  for _, k in ipairs({"snippets_file", "used_file", "extras_file", "chapter", "src_prefix",
                      "figure_prefix", "edition", "source_name", "root", "demo_figures"}) do
    meta_cfg[k] = str(m[k])
  end
  if not meta_cfg.snippets_file then fail("snippets_file metadata is missing") end
  local ok, tbl = pcall(dofile, meta_cfg.snippets_file)
  if not ok or type(tbl) ~= "table" then fail("cannot load " .. meta_cfg.snippets_file) end
  snippets = tbl
end

local function where(el)
  return (meta_cfg.source_name or "chapter") .. ": "
end

-- ```{.text include="bench/results/x.txt" from="text" to="text"}```: the committed result file's
-- lines from the first that contains `from` (default: the first line) up to, not including, the
-- next that contains `to` (default: to the end), so that a chapter shows measured tables as they
-- are regenerated
-- ---- result files as tables ----------------------------------------------------------------

local function inlines(s)
  local out = {}
  for w in s:gmatch("%S+") do
    if #out > 0 then out[#out + 1] = pandoc.Space() end
    out[#out + 1] = pandoc.Str(w)
  end
  return out
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

local function is_number(s)
  return s:match("^[-+]?%d[%d.,]*[eE]?[-+]?%d*%%?$") ~= nil or s:match("^[-+]?%.%d+") ~= nil
end

-- a pandoc table of a header row and rows (lists of strings); numeric columns right-aligned
local function make_table(header, rows)
  local n = #header
  local aligns, widths = {}, {}
  for j = 1, n do
    local numeric = #rows > 0
    for _, r in ipairs(rows) do
      local c = r[j] or ""
      if c ~= "" and not is_number(c) then numeric = false end
    end
    aligns[j] = numeric and pandoc.AlignRight or pandoc.AlignDefault
    widths[j] = 0
  end
  local function cells(r)
    local out = {}
    for j = 1, n do out[j] = {pandoc.Plain(inlines(r[j] or ""))} end
    return out
  end
  local body = {}
  for _, r in ipairs(rows) do body[#body + 1] = cells(r) end
  return pandoc.utils.from_simple_table(pandoc.SimpleTable({}, aligns, widths, cells(header), body))
end

local function csv_split(line)
  local out, cur, q = {}, {}, false
  for i = 1, #line do
    local ch = line:sub(i, i)
    if ch == '"' then q = not q
    elseif ch == "," and not q then out[#out + 1] = trim(table.concat(cur)); cur = {}
    else cur[#cur + 1] = ch end
  end
  out[#out + 1] = trim(table.concat(cur))
  return out
end

local function text_para(lines)
  local l = {}
  for _, s in ipairs(lines) do l[#l + 1] = inlines(trim(s)) end
  return pandoc.LineBlock(l)
end

-- columns of aligned lines: gutters are the positions where every line has a space; a run of
-- other positions starts a column where the header (the first line) has text, else belongs to
-- the column before. nil when the lines are not a table (fewer than 3 columns, a header cell
-- longer than a label, a row with fewer than 2 cells)
local function aligned(lines)
  if #lines < 3 then return nil end
  local w = 0
  for _, s in ipairs(lines) do w = math.max(w, #s) end
  local gutter = {}
  for p = 1, w do
    local g = true
    for _, s in ipairs(lines) do
      local ch = s:sub(p, p)
      if ch ~= "" and ch ~= " " then g = false; break end
    end
    gutter[p] = g
  end
  local starts, p, hdr = {}, 1, lines[1]
  while p <= w do
    if gutter[p] then p = p + 1 else
      local q = p
      while q <= w and not gutter[q] do q = q + 1 end
      local has = hdr:sub(p, q - 1):match("%S") ~= nil
      if has or #starts == 0 then starts[#starts + 1] = p end
      p = q
    end
  end
  if #starts < 3 then return nil end
  local function split(s)
    local out = {}
    for j = 1, #starts do
      out[j] = trim(s:sub(starts[j], (starts[j + 1] or (w + 1)) - 1))
    end
    return out
  end
  local header = split(hdr)
  local data = {}
  for i = 2, #lines do data[#data + 1] = split(lines[i]) end
  -- a header word over no data ("ICA" of "ICA ms/step", right-aligned numbers under the last
  -- word) belongs to the next column
  local j = 1
  while j < #header do
    local empty = true
    for _, r in ipairs(data) do if r[j] ~= "" then empty = false; break end end
    if empty then
      header[j + 1] = header[j] .. " " .. header[j + 1]
      table.remove(header, j)
      for _, r in ipairs(data) do table.remove(r, j) end
    else
      j = j + 1
    end
  end
  if #header < 3 then return nil end
  for _, c in ipairs(header) do if #c > 24 or c == "" then return nil end end
  local rows = {}
  for _, r in ipairs(data) do
    local filled = 0
    for _, c in ipairs(r) do
      if c ~= "" then filled = filled + 1 end
      if c:match("[,;:]$") then return nil end -- a sentence cut at its spaces, not a table
    end
    if filled < 2 then return nil end
    rows[#rows + 1] = r
  end
  return make_table(header, rows)
end

-- a block of lines (no blank line inside): the longest run of aligned lines as a table, the
-- lines before and after it as text
local function table_block(lines, out)
  local n = #lines
  for k = 1, n do
    for m = n, k + 3, -1 do
      local run = {}
      for i = k, m do run[#run + 1] = lines[i] end
      local t = aligned(run)
      if t then
        if k > 1 then out[#out + 1] = text_para({table.unpack(lines, 1, k - 1)}) end
        out[#out + 1] = t
        if m < n then out[#out + 1] = text_para({table.unpack(lines, m + 1, n)}) end
        return
      end
    end
  end
  out[#out + 1] = text_para(lines)
end

local function as_blocks(fmt, lines)
  local out = {}
  if fmt == "csv" then
    local header, rows, notes = nil, {}, {}
    for _, s in ipairs(lines) do
      if s:match("^%s*#") then notes[#notes + 1] = trim(s:gsub("^%s*#%s*", ""))
      elseif s:match("%S") then
        if not header then header = csv_split(s) else rows[#rows + 1] = csv_split(s) end
      end
    end
    if header then out[#out + 1] = make_table(header, rows) end
    if #notes > 0 then
      local items = {}
      for _, s in ipairs(notes) do items[#items + 1] = {pandoc.Plain(inlines(s))} end
      out[#out + 1] = pandoc.BulletList(items)
    end
  elseif fmt == "markdown" then
    for _, b in ipairs(pandoc.read(table.concat(lines, "\n"), "markdown").blocks) do
      -- its headings are the result's own: bold lines, not sections of the chapter
      if b.t == "Header" then b = pandoc.Para({pandoc.Strong(b.content)}) end
      out[#out + 1] = b
    end
  else -- "table"
    local block = {}
    for _, s in ipairs(lines) do
      if s:match("%S") then block[#block + 1] = s:gsub("%s+$", "")
      elseif #block > 0 then table_block(block, out); block = {} end
    end
    if #block > 0 then table_block(block, out) end
  end
  return out
end

local function included(el)
  local path = el.attributes["include"]
  local f = io.open((meta_cfg.root or ".") .. "/" .. path, "r")
  if not f then fail(where(el) .. "included file '" .. path .. "' does not exist") end
  local from, to = el.attributes["from"], el.attributes["to"]
  local out, on, found_from, found_to = {}, from == nil, from == nil, to == nil
  for line in f:lines() do
    if not on and line:find(from, 1, true) then on, found_from = true, true
    elseif on and to and #out > 0 and line:find(to, 1, true) then found_to = true; break end
    if on then out[#out + 1] = line end
  end
  f:close()
  if not found_from then fail(where(el) .. "'" .. path .. "' has no line with '" .. from .. "'") end
  if not found_to then fail(where(el) .. "'" .. path .. "' has no line with '" .. to .. "' after '" .. (from or "") .. "'") end
  local drop = el.attributes["drop"]
  if drop then
    for i, s in ipairs(out) do out[i] = s:gsub(drop, ""):gsub("%s+$", "") end
  end
  local caption = pandoc.Plain({pandoc.Link({pandoc.Code(path)}, (meta_cfg.src_prefix or "") .. path),
                                pandoc.Space(), pandoc.Str("(measured, committed)")})
  local fmt = el.attributes["format"]
  if fmt and fmt ~= "text" then
    if fmt ~= "csv" and fmt ~= "markdown" and fmt ~= "table" then
      fail(where(el) .. "include '" .. path .. "': format '" .. fmt .. "' is none of text, csv, markdown, table")
    end
    local blocks = {pandoc.Div({caption}, pandoc.Attr("", {"snippet-caption"}))}
    local body = as_blocks(fmt, out)
    blocks[#blocks + 1] = pandoc.Div(body, pandoc.Attr("", {"result-body"}))
    return pandoc.Div(blocks, pandoc.Attr("", {"snippet", "snippet-lib", "result"}))
  end
  return pandoc.Div({pandoc.Div({caption}, pandoc.Attr("", {"snippet-caption"})),
                     pandoc.CodeBlock(table.concat(out, "\n"), pandoc.Attr("", {"text"}))},
                    pandoc.Attr("", {"snippet", "snippet-lib"}))
end

-- pseudo-code lines fit the page's text column without scrolling (and GitHub's)
local PSEUDO_WIDTH = 80

-- the pseudo-code of a snippet block as HTML: `//` comments muted, keywords bold: `then` and
-- `do` anywhere, the others where they start a statement (first on the line, or after a bold
-- keyword: "if ... then return x"), so that "for" or "if" inside a sentence stay plain
local ALWAYS, STARTS = {["then"] = true, ["do"] = true}, {}
for w in ("for if else while repeat until return break continue"):gmatch("%S+") do STARTS[w] = true end

local function escape(t)
  return (t:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"))
end

local function pseudo_html(text)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local code, comment = line, nil
    local at = line:find("//", 1, true)
    if at then code, comment = line:sub(1, at - 1), line:sub(at) end
    local first, after_kw = true, false
    code = escape(code):gsub("()([%a_][%w_]*)()", function(_, w, _)
      local bold = ALWAYS[w] or (STARTS[w] and (first or after_kw))
      first, after_kw = false, bold and true or false
      if bold then return "<b>" .. w .. "</b>" end
    end)
    if comment then code = code .. '<span class="pc-comment">' .. escape(comment) .. "</span>" end
    out[#out + 1] = code
  end
  return '<pre class="pseudo">' .. table.concat(out, "\n") .. "</pre>"
end

local function caption_div(inlines)
  return pandoc.Div({pandoc.Plain(inlines)}, pandoc.Attr("", {"snippet-caption"}))
end

-- ```{.c snippet="ch02:gap-sphere-plane"}``` with its algorithm in pseudo-code as the body. The
-- body is required when the snippet holds an exercise region (`exercises` non-empty): in the
-- student edition that code is a stub, and the algorithm is what the student reads instead (the
-- raw README on GitHub shows it too, where it would otherwise show an empty code fence).
-- Student edition: the algorithm and a pointer to the stub. Instructor edition: the algorithm,
-- then the code. A snippet of library code shows its code in both (and its algorithm, if given).
local function code_block(el)
  if el.attributes["include"] then return included(el) end
  local name = el.attributes["snippet"]
  if not name then return nil end
  local s = snippets[name]
  if not s then
    fail(where(el) .. "snippet '" .. name .. "' is not defined in the " .. (meta_cfg.edition or "")
         .. " edition's sources (markers //> " .. name .. " ... //< " .. name .. ")")
  end
  used[name] = true
  local pseudo = el.text:match("%S") and el.text:gsub("%s+$", "") or nil
  local exercises = s.exercises or ""
  if exercises ~= "" and not pseudo then
    missing[#missing + 1] = "  " .. name .. (exercises == "helper" and " (a helper of the solution)"
                                             or " (exercise " .. exercises .. ")")
  end
  for line in (pseudo or ""):gmatch("[^\n]+") do
    if utf8.len(line) > PSEUDO_WIDTH then
      fail(where() .. "the pseudo-code of snippet '" .. name .. "' has a line longer than " .. PSEUDO_WIDTH ..
           " characters (the book would scroll it):\n  " .. line)
    end
  end
  local href = (meta_cfg.src_prefix or "") .. s.file
  local where_link = pandoc.Link({pandoc.Code(s.file .. ":" .. s.line)}, href .. "#L" .. s.line)
  local blocks = {}
  if pseudo then
    local cap = {pandoc.Strong({pandoc.Str("Algorithm")})}
    if exercises ~= "" and exercises ~= "helper" then
      cap[#cap + 1] = pandoc.Space()
      cap[#cap + 1] = pandoc.Str("(" .. exercises:gsub(" ", ", ") .. ")")
    end
    if meta_cfg.edition == "student" and exercises ~= "" then
      for _, x in ipairs({pandoc.Space(), pandoc.Str("·"), pandoc.Space(), pandoc.Str("you write it in"),
                          pandoc.Space(), where_link}) do cap[#cap + 1] = x end
    end
    for _, x in ipairs({pandoc.Space(), pandoc.Str("·"), pandoc.Space(), pandoc.Emph({pandoc.Str(name)})}) do
      cap[#cap + 1] = x
    end
    blocks[#blocks + 1] = pandoc.Div({caption_div(cap), pandoc.RawBlock("html", pseudo_html(pseudo))},
                                     pandoc.Attr("", {"snippet", "algorithm"}, {["data-snippet"] = name}))
  end
  if meta_cfg.edition == "student" and exercises ~= "" then
    return blocks
  end
  local attrs = {}
  for k, v in pairs(el.attributes) do
    if k ~= "snippet" then attrs[k] = v end
  end
  local classes = el.classes
  if #classes == 0 then classes = {"c"} end
  local block = pandoc.CodeBlock(s.code, pandoc.Attr("", classes, attrs))
  local caption = caption_div({where_link, pandoc.Space(), pandoc.Str("·"), pandoc.Space(),
                               pandoc.Emph({pandoc.Str(name)})})
  blocks[#blocks + 1] = pandoc.Div({caption, block},
                                   pandoc.Attr("", {"snippet", "snippet-" .. (s.kind or "lib")},
                                               {["data-snippet"] = name}))
  return blocks
end

local function is_relative(t)
  return not (t:match("^%a[%w+.-]*:") or t:match("^#") or t:match("^/"))
end

local function link(el)
  local t = el.target
  if not is_relative(t) then return nil end
  local chap, anchor = t:match("^%.%./(ch%d%d)/README%.md(#?.*)$")
  if chap then el.target = chap .. ".html" .. anchor; return el end
  if t:match("^README%.md") then
    el.target = (meta_cfg.chapter or "index") .. ".html" .. t:sub(10); return el
  end
  -- a path relative to the chapter folder -> into the source tree
  el.target = (meta_cfg.src_prefix or "") .. "chapters/" .. (meta_cfg.chapter or "") .. "/" .. t
  return el
end

-- figures: "demo:ch07/funnel" is the demo's screenshot the build made, "bench:bench/results/x.png"
-- a committed benchmark plot the build copied; both land in the chapter's figures/
local function image(el)
  local t = el.src
  local demo = t:match("^demo:(.+)$")
  local bench = t:match("^bench:(.+)$")
  if demo and meta_cfg.demo_figures == "no" then
    -- no reference solutions in this tree (a handout): say where the picture is
    return pandoc.Emph({pandoc.Str("(Figure:"), pandoc.Space(), pandoc.Code(demo), pandoc.Str(","), pandoc.Space(),
                        pandoc.Str("which"), pandoc.Space(), pandoc.Code("make demo-ch" .. tonumber(demo:match("^ch(%d+)"))),
                        pandoc.Space(), pandoc.Str("shows once your code passes the chapter's tests.)")})
  end
  if demo then el.src = (meta_cfg.figure_prefix or "") .. "figures/demo-" .. demo:gsub("/", "_") .. ".png"; return el end
  if bench then el.src = (meta_cfg.figure_prefix or "") .. "figures/" .. bench:match("([^/]+)$"); return el end
  if not is_relative(t) then return nil end
  el.src = (meta_cfg.figure_prefix or "") .. t
  return el
end

local function finish(doc)
  if #missing > 0 then
    fail(where() .. "these snippets hold exercise code, a stub in the student edition, and no algorithm: " ..
         "write it as pseudo-code in the block's body (```{.c snippet=\"name\"}, the steps, ```)\n" ..
         table.concat(missing, "\n"))
  end
  if meta_cfg.used_file then
    local f = io.open(meta_cfg.used_file, "a")
    if not f then fail("cannot write " .. meta_cfg.used_file) end
    for name, _ in pairs(used) do f:write(name .. "\n") end
    f:close()
  end
  if meta_cfg.extras_file then
    local f = io.open(meta_cfg.extras_file, "r")
    if f then
      local text = f:read("a")
      f:close()
      -- generated with final link targets: not rewritten
      for _, b in ipairs(pandoc.read(text, "markdown").blocks) do doc.blocks:insert(b) end
    end
  end
  return doc
end

return {
  {Meta = function(m) read_meta(m) end},
  {CodeBlock = code_block, Link = link, Image = image},
  {Pandoc = finish},
}
