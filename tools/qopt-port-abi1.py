#!/usr/bin/env python3
"""qopt-port-abi1.py FILE... - ports plugin sources from qopt plugin ABI 1
to ABI 2 in place (docs/plugin-abi.md, "Porting a plugin from ABI 1"):

- the hand-written entry tail (a static qopt_plugin_info starting with
  QOPT_ABI_VERSION and a qopt_plugin_entry() returning it) becomes
  QOPT_PLUGIN(name, version, passes);
- positional qopt_option_spec and qopt_pass_info entries become
  designated initializers, so fields a later ABI adds at the end (ABI
  3.0's calibration_targets) do not trip -Wmissing-field-initializers.

Files it does not recognise are left as they are; it prints what it did.
"""
import re
import sys

TAIL = re.compile(
    r'static const qopt_plugin_info (\w+) = \{\s*QOPT_ABI_VERSION,\s*'
    r'("[^"]*"|\w+),\s*("[^"]*"|\w+),\s*(\w+)\s*\};\s*'
    r'(?:/\*.*?\*/\s*)?'
    r'QOPT_EXPORT const qopt_plugin_info \*qopt_plugin_entry\(void\)\s*'
    r'\{\s*return &\1;\s*\}\n', re.S)
OPTION_TABLE = re.compile(r'qopt_option_spec\s+\w+\[\]\s*=\s*\{')
OPTION_FIELDS = ('name', 'type', 'default_value', 'help')
PASS_TABLE = re.compile(r'qopt_pass_info\s+\w+\[\]\s*=\s*\{')
PASS_FIELDS = ('name', 'summary', 'options', 'run', 'flags')


def split_top(text):
    """Splits on commas outside strings, parentheses and braces."""
    parts, depth, cur, i = [], 0, '', 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            cur += text[i:j + 1]
            i = j + 1
            continue
        if c in '({':
            depth += 1
        elif c in ')}':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += c
        i += 1
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def entry(body, indent, fields):
    parts = split_top(body)
    if parts and parts[0].startswith('.'):
        return None                     # already designated
    if not parts or parts[0] in ('0', 'NULL'):
        return '{ 0 }'
    if len(parts) > len(fields):
        return None
    out = ['.%s = %s' % (f, v) for f, v in zip(fields, parts)]
    if any('\n' in v for v in parts):  # a long entry: one field a line
        sep = ',\n' + indent + '  '
        return '{ ' + sep.join(out) + ' }'
    head = '{ ' + ', '.join(out[:3])
    if len(out) > 3:
        head += ',\n' + indent + '  ' + ', '.join(out[3:])
    return head + ' }'


def port_tables(src, table, fields):
    pos, res, n = 0, [], 0
    for m in table.finditer(src):
        res.append(src[pos:m.end()])
        i = m.end()
        while True:
            while src[i] in ' \t\n':
                res.append(src[i])
                i += 1
            if src[i] == '}':
                break
            if src[i] != '{':           # not a table we understand
                break
            depth, j = 0, i
            while True:
                if src[j] == '"':
                    j += 1
                    while src[j] != '"':
                        j += 2 if src[j] == '\\' else 1
                elif src[j] == '{':
                    depth += 1
                elif src[j] == '}':
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            line_start = src.rfind('\n', 0, i) + 1
            indent = src[line_start:i]
            new = entry(src[i + 1:j], indent, fields)
            if new is None:
                new = src[i:j + 1]
            elif new != src[i:j + 1]:
                n += 1
            res.append(new)
            i = j + 1
            while src[i] in ' \t':
                i += 1
            if src[i] == ',':
                res.append(',')
                i += 1
        pos = i
    res.append(src[pos:])
    return ''.join(res), n


def main(paths):
    for path in paths:
        with open(path) as f:
            src = f.read()
        new, ntail = TAIL.subn(
            lambda m: 'QOPT_PLUGIN(%s, %s, %s)\n' % m.group(2, 3, 4), src)
        new, nopts = port_tables(new, OPTION_TABLE, OPTION_FIELDS)
        new, npasses = port_tables(new, PASS_TABLE, PASS_FIELDS)
        if new != src:
            with open(path, 'w') as f:
                f.write(new)
        print('%s: %d entry tail(s), %d option(s), %d pass(es) ported' %
              (path, ntail, nopts, npasses))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
