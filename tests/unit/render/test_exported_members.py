"""The public surface: `carimg.render.__all__` lists exactly the public names, each importable."""

from __future__ import annotations

import carimg.render


def test_all_names_exist_and_are_public() -> None:
    for name in carimg.render.__all__:
        assert not name.startswith("_")
        assert hasattr(carimg.render, name), name


def test_every_public_name_is_in_all() -> None:
    public = {
        name
        for name in dir(carimg.render)
        if not name.startswith("_") and not isinstance(getattr(carimg.render, name), type(carimg))
    }
    assert public == set(carimg.render.__all__)


def test_exported_members_come_from_private_modules() -> None:
    for name in carimg.render.__all__:
        member = getattr(carimg.render, name)
        module = getattr(member, "__module__", None)
        if module is not None and module.startswith("carimg.render"):
            assert module.split(".")[-1].startswith("_"), (name, module)
