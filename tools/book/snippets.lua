-- SPDX-License-Identifier: MIT
-- tools/book/snippets.lua: the book's pandoc Lua filter (pandoc 2.17+), run by tools/book/build.
--
--  * A code block ```{.c snippet="ch01:velocity-update"}``` is replaced by the code between
--    `//> ch01:velocity-update` and `//< ch01:velocity-update` in the compiled sources of this
--    edition (lib/ and solutions/ for the instructor, lib/ and exercises/ for the student), with
--    a caption naming the file and line. An unknown snippet name stops the build.
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
-- name -> {file=, line=, code=}), used_file, extras_file, chapter (e.g. ch01), src_prefix,
-- figure_prefix, edition, root (the repository, for included files).

local snippets = nil
local meta_cfg = {}
local used = {}

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
  local attrs = {}
  for k, v in pairs(el.attributes) do
    if k ~= "snippet" then attrs[k] = v end
  end
  local classes = el.classes
  if #classes == 0 then classes = {"c"} end
  local block = pandoc.CodeBlock(s.code, pandoc.Attr("", classes, attrs))
  local href = (meta_cfg.src_prefix or "") .. s.file
  local caption = pandoc.Plain({
    pandoc.Link({pandoc.Code(s.file .. ":" .. s.line)}, href .. "#L" .. s.line),
    pandoc.Space(), pandoc.Str("·"), pandoc.Space(),
    pandoc.Emph({pandoc.Str(name)})
  })
  return pandoc.Div({pandoc.Div({caption}, pandoc.Attr("", {"snippet-caption"})), block},
                    pandoc.Attr("", {"snippet", "snippet-" .. (s.kind or "lib")},
                                {["data-snippet"] = name}))
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
