"""docs/TESTING.md shows the files of examples/testing as they are (the worked example cannot drift from the
project our CI runs), and names every public name of ag.testing."""
import pathlib
import re


ROOT = pathlib.Path(__file__).resolve().parents[2]
GUIDE = (ROOT / 'docs' / 'TESTING.md').read_text()


def shown_files():
    """path -> text of each ```python block of the guide whose first line is '# examples/...'."""
    blocks = re.findall(r'```python\n# (examples/\S+)\n(.*?)```', GUIDE, re.S)
    return {path: text for path, text in blocks}


def test_the_guide_shows_every_file_of_the_example_project_as_it_is():
    shown = shown_files()
    project = {str(p.relative_to(ROOT)) for p in (ROOT / 'examples' / 'testing').rglob('*.py')
               if '__pycache__' not in p.parts}
    assert set(shown) == project
    for path, text in shown.items():
        # After a change of the converter's output: rewrite the example's snapshot (cd examples/testing &&
        # PYTHONPATH=../.. python -m pytest -p autograph_lite.testing.plugin --ag-update-snapshots), then copy it here.
        assert text == (ROOT / path).read_text(), f'docs/TESTING.md shows {path} as it was: copy the file into the guide'


def test_the_guide_names_the_public_api():
    public = ['assert_converted_equivalent', 'assert_graph_matches_eager', 'assert_no_stale_captures',
              'assert_gradients_match', 'assert_traces', 'count_traces', 'assert_code_matches', 'given_signature',
              'strategies', 'set_update_snapshots', 'MODES', 'ConversionMismatch', 'ag_modes', 'ag_trace_count',
              'ag_run_eagerly', '--ag-update-snapshots']
    assert [name for name in public if name not in GUIDE] == []
