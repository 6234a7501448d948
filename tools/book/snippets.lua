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
--    the part between its `from` and `to` lines): measured tables regenerate with the book.
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
                      "figure_prefix", "edition", "source_name", "root"}) do
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
  local caption = pandoc.Plain({pandoc.Link({pandoc.Code(path)}, (meta_cfg.src_prefix or "") .. path),
                                pandoc.Space(), pandoc.Str("(measured, committed)")})
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

local function image(el)
  local t = el.src
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
