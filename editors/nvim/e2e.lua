-- End-to-end test of thund-lsp with Neovim's own LSP client (0.7 and later).
--
-- Run by editors/nvim/test.sh as
--   THUND_LSP=bin/thund-lsp THUND_ROOT=/tmp/copy-of-retail \
--     nvim --headless --clean -n -i NONE -c 'luafile editors/nvim/e2e.lua'
-- THUND_ROOT is a copy of testdata/retail plus transformations/broken.sql,
-- which reads `clean_order` (a typo) on its line 3.
--
-- Every wait is bounded; any failure prints "nvim e2e: FAIL: ..." and exits
-- with status 1, success prints "nvim e2e: PASS" and exits with status 0.

local bin = os.getenv('THUND_LSP')
local root = os.getenv('THUND_ROOT')
local TIMEOUT = 20000 -- ms, per wait

local function say(msg)
  io.stdout:write('nvim e2e: ' .. msg .. '\n')
  io.stdout:flush()
end

local function fail(msg)
  io.stderr:write('nvim e2e: FAIL: ' .. msg .. '\n')
  io.stderr:flush()
  vim.cmd('cquit 1')
end

-- wait polls cond until it is true or TIMEOUT passes; what names the wait
-- in the failure message.
local function wait(what, cond)
  if not vim.wait(TIMEOUT, cond, 20) then
    fail('timed out after ' .. TIMEOUT .. ' ms waiting for ' .. what)
  end
end

-- open edits a file of the pipeline and attaches the client to its buffer
-- (which sends textDocument/didOpen).
local function open(client_id, rel)
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. rel))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'sql'
  if not vim.lsp.buf_attach_client(buf, client_id) then
    fail('cannot attach the client to ' .. rel)
  end
  return buf
end

-- find returns the 0-based line and UTF-16 column of the first occurrence
-- of needle in a buffer (the test files are ASCII).
local function find(buf, needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return i - 1, col - 1
    end
  end
  fail(string.format('%q not found in %s', needle, vim.api.nvim_buf_get_name(buf)))
end

-- request sends a request to the server and returns its result.
local function request(buf, method, params)
  local answers, err = vim.lsp.buf_request_sync(buf, method, params, TIMEOUT)
  if not answers then
    fail(method .. ': no answer: ' .. tostring(err))
  end
  for _, a in pairs(answers) do
    if a.err then
      fail(method .. ': error ' .. vim.inspect(a.err))
    end
    return a.result
  end
  fail(method .. ': no client answered')
end

local function position(buf, needle, delta)
  local line, col = find(buf, needle)
  return {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = col + (delta or 0) },
  }
end

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function main()
  if not bin or not root then
    fail('set THUND_LSP (the server binary) and THUND_ROOT (the pipeline)')
  end
  if vim.fn.executable(bin) ~= 1 then
    fail(bin .. ' is not an executable')
  end
  say(tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch .. ', server ' .. bin)

  local exit_code
  local client_id = vim.lsp.start_client({
    name = 'thund',
    cmd = { bin },
    root_dir = root,
    on_exit = function(code) exit_code = code end,
  })
  if not client_id then
    fail('vim.lsp.start_client did not start ' .. bin)
  end
  wait('initialize', function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized == true
  end)
  local client = vim.lsp.get_client_by_id(client_id)
  local caps = client.server_capabilities or {}
  for _, cap in ipairs({ 'hoverProvider', 'definitionProvider', 'referencesProvider', 'completionProvider' }) do
    if not caps[cap] then
      fail('initialize: server does not announce ' .. cap)
    end
  end
  say('initialized')

  -- Diagnostics: broken.sql reads clean_order (a typo), on line 3 (0-based 2).
  local broken = open(client_id, 'transformations/broken.sql')
  local lines = open(client_id, 'transformations/order_lines.sql')
  wait('diagnostics on broken.sql', function() return #vim.diagnostic.get(broken) > 0 end)
  local ds = vim.diagnostic.get(broken)
  local d = ds[1]
  if #ds ~= 1 or code_of(d) ~= 'unknown-reference' or d.lnum ~= 2 then
    fail('diagnostics on broken.sql: want one unknown-reference on line 2, got ' .. vim.inspect(ds))
  end
  if not d.message:find('clean_order', 1, true) then
    fail('diagnostic message does not name clean_order: ' .. d.message)
  end
  if #vim.diagnostic.get(lines) ~= 0 then
    fail('order_lines.sql should be clean: ' .. vim.inspect(vim.diagnostic.get(lines)))
  end
  say('diagnostic ' .. code_of(d) .. ' on line ' .. d.lnum .. ': ' .. d.message)

  -- Fix the typo with the quick fix, as a user does: cursor on the
  -- diagnostic, vim.lsp.buf.code_action(), pick the preferred action from
  -- the menu (vim.ui.select, replaced here by a chooser that records what
  -- it was offered). Neovim applies its edit and sends didChange; the
  -- diagnostic goes.
  vim.api.nvim_set_current_buf(broken)
  local l, c = find(broken, 'clean_order')
  vim.api.nvim_win_set_cursor(0, { l + 1, c + 2 })
  local offered
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    local pick
    for _, item in ipairs(items) do
      local action = item[2]
      table.insert(offered, action.title)
      if action.isPreferred and not pick then
        pick = item
      end
    end
    on_choice(pick)
  end
  vim.lsp.buf.code_action()
  wait('the code actions of the diagnostic', function() return offered ~= nil end)
  vim.ui.select = select
  if not vim.tbl_contains(offered, 'Change to clean_orders') then
    fail('code actions on clean_order: no "Change to clean_orders" among ' .. vim.inspect(offered))
  end
  wait('the quick fix to rewrite the line', function()
    return vim.api.nvim_buf_get_lines(broken, l, l + 1, false)[1] == 'FROM clean_orders'
  end)
  wait('the diagnostic to clear after the fix', function() return #vim.diagnostic.get(broken) == 0 end)
  say('quick fix applied (offered: ' .. table.concat(offered, '; ') .. '); diagnostic cleared after didChange')

  -- Hover on the reference to clean_orders in order_lines.sql.
  local hover = request(lines, 'textDocument/hover', position(lines, 'clean_orders', 3))
  local text = hover and hover.contents and (hover.contents.value or hover.contents) or ''
  if type(text) ~= 'string' then
    text = vim.inspect(text)
  end
  for _, want in ipairs({ '**clean_orders** · materialized view', 'transformations/clean_orders.sql', 'Upstream: orders (source)' }) do
    if not text:find(want, 1, true) then
      fail('hover lacks ' .. want .. ':\n' .. text)
    end
  end
  say('hover: ' .. text:gsub('\n.*', ''))

  -- References of clean_orders: read by order_lines.sql (and broken.sql now).
  local refs = request(lines, 'textDocument/references',
    vim.tbl_extend('force', position(lines, 'clean_orders', 0), { context = { includeDeclaration = false } }))
  local files = {}
  for _, r in ipairs(refs or {}) do
    files[vim.fn.fnamemodify(vim.uri_to_fname(r.uri), ':t')] = true
  end
  if not files['order_lines.sql'] or not files['broken.sql'] then
    fail('references of clean_orders: ' .. vim.inspect(refs))
  end
  say('references: ' .. #refs)

  -- Go to definition the way a user does: cursor on the reference, then
  -- vim.lsp.buf.definition(); Neovim's handler jumps to the file.
  vim.api.nvim_set_current_buf(lines)
  local dl, dc = find(lines, 'clean_orders')
  vim.api.nvim_win_set_cursor(0, { dl + 1, dc + 2 })
  vim.lsp.buf.definition()
  local want = root .. '/transformations/clean_orders.sql'
  wait('go-to-definition to open clean_orders.sql', function()
    return vim.api.nvim_buf_get_name(0) == want
  end)
  say('definition jumped to ' .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':~:.'))

  -- Hover on a column: o.amount in order_lines.sql comes from
  -- clean_orders, where it is computed.
  local function hover_text(buf, needle, delta)
    local h = request(buf, 'textDocument/hover', position(buf, needle, delta))
    local t = h and h.contents and (h.contents.value or h.contents) or ''
    if type(t) ~= 'string' then
      t = vim.inspect(t)
    end
    return t
  end
  text = hover_text(lines, 'o.amount', 3)
  for _, want in ipairs({ '**amount**', 'Column of dataset `clean_orders` (as `o`)',
    'transformations/clean_orders.sql:16', 'cast(quantity AS INTEGER) * cast(unit_price AS DECIMAL(10, 2))' }) do
    if not text:find(want, 1, true) then
      fail('column hover on o.amount lacks ' .. want .. ':\n' .. text)
    end
  end
  say('column hover: ' .. text:gsub('\n.*', ''))

  -- Rename the column the way a user does: cursor on o.amount, then
  -- vim.lsp.buf.rename() (prepareRename, then rename; Neovim applies the
  -- workspace edit, loading the files that are not open). Its definition
  -- in clean_orders.sql and its readers downstream follow; broken.sql,
  -- which now reads clean_orders.amount, too.
  vim.api.nvim_set_current_buf(lines)
  local rl, rc = find(lines, 'o.amount,')
  vim.api.nvim_win_set_cursor(0, { rl + 1, rc + 3 })
  vim.lsp.buf.rename('line_amount')
  local function buf_of(rel)
    local b = vim.fn.bufnr(root .. '/' .. rel)
    return b > 0 and vim.api.nvim_buf_is_loaded(b) and b or nil
  end
  local function has(rel, needle)
    local b = buf_of(rel)
    return b ~= nil and table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'):find(needle, 1, true) ~= nil
  end
  local renamed = {
    ['transformations/clean_orders.sql'] = 'AS line_amount',
    ['transformations/order_lines.sql'] = 'o.quantity - o.line_amount AS discount',
    ['transformations/customer_orders.sql'] = 'sum(l.line_amount) AS order_total',
    ['transformations/revenue.sql'] = 'sum(line_amount)',
    ['transformations/broken.sql'] = 'line_amount',
  }
  for rel, want in pairs(renamed) do
    wait('the rename to reach ' .. rel .. ' (' .. want .. ')', function() return has(rel, want) end)
  end
  if has('transformations/clean_orders.sql', 'AS amount') or has('transformations/order_lines.sql', 'o.amount') then
    fail('the rename left amount behind')
  end
  say('column rename reached ' .. vim.tbl_count(renamed) .. ' files')

  -- The server sees the renamed buffers (attached: didOpen with their
  -- text) and resolves the new name through the renamed upstream.
  for rel in pairs(renamed) do
    local b = buf_of(rel)
    if not vim.lsp.buf_is_attached(b, client_id) and not vim.lsp.buf_attach_client(b, client_id) then
      fail('cannot attach the client to ' .. rel)
    end
  end
  wait('a hover on o.line_amount through the renamed clean_orders', function()
    return hover_text(lines, 'o.line_amount', 3):find('transformations/clean_orders.sql:16', 1, true) ~= nil
  end)
  wait('no diagnostics after the rename', function()
    for rel in pairs(renamed) do
      if #vim.diagnostic.get(buf_of(rel)) ~= 0 then
        return false
      end
    end
    return true
  end)
  say('hover on the renamed column resolves through clean_orders.sql')

  -- Shut down: shutdown then exit; the server must stop by itself.
  vim.lsp.stop_client(client_id)
  wait('the server to exit after shutdown', function() return exit_code ~= nil end)
  if exit_code ~= 0 then
    fail('the server exited with status ' .. tostring(exit_code))
  end
  say('server exited with status 0')
  say('PASS')
  vim.cmd('qall!')
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail('error in the test script: ' .. tostring(err))
end
