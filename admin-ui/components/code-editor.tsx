/**
 * The one importer of CodeMirror 6 (through @uiw/react-codemirror): a SQL editor with
 * highlighting and Ctrl/Cmd+Enter to run, and a JSON editor. Its theme follows the system's
 * colour scheme like the rest of the page.
 */

'use client';

import { json } from '@codemirror/lang-json';
import { sql } from '@codemirror/lang-sql';
import CodeMirror, { EditorView, keymap, Prec } from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef, useState } from 'react';

function useColorScheme(): 'light' | 'dark' {
  const [scheme, setScheme] = useState<'light' | 'dark'>('light');
  useEffect(() => {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    const update = () => setScheme(query.matches ? 'dark' : 'light');
    update();
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return scheme;
}

interface EditorProps {
  value: string;
  onChange: (value: string) => void;
  language: 'sql' | 'json';
  /** Ctrl/Cmd+Enter. */
  onRun?: () => void;
  label: string;
  height?: string;
  readOnly?: boolean;
}

export function CodeEditor({
  value,
  onChange,
  language,
  onRun,
  label,
  height,
  readOnly,
}: EditorProps) {
  const scheme = useColorScheme();
  // The keymap is made once; it calls whatever onRun is current.
  const run = useRef(onRun);
  run.current = onRun;
  const extensions = useMemo(
    () => [
      language === 'sql' ? sql() : json(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      Prec.highest(
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              run.current?.();
              return true;
            },
          },
        ]),
      ),
    ],
    [language, label],
  );
  return (
    <div className="editor">
      <CodeMirror
        value={value}
        onChange={onChange}
        extensions={extensions}
        theme={scheme}
        height={height ?? '160px'}
        readOnly={readOnly ?? false}
        basicSetup={{ foldGutter: false, highlightActiveLine: !readOnly }}
      />
    </div>
  );
}
