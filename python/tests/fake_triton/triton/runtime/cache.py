import base64
import json
import os


def _base32(key):
    return base64.b32encode(bytes.fromhex(key)).decode("utf-8").rstrip("=")


class CacheManager:
    pass


class FileCacheManager(CacheManager):
    def __init__(self, key, override=False, dump=False):
        self.key = key
        self.cache_dir = os.path.join(os.environ["TRITON_CACHE_DIR"], key)
        os.makedirs(self.cache_dir, exist_ok=True)

    def get_file(self, filename):
        path = os.path.join(self.cache_dir, filename)
        return path if os.path.exists(path) else None

    def get_group(self, filename):  # as Triton's: this cache's folder only
        group = os.path.join(self.cache_dir, "__grp__" + filename)
        if not os.path.exists(group):
            return None
        with open(group) as f:
            children = json.load(f)["child_paths"]
        return {c: p for c, p in children.items() if os.path.exists(p)}

    def put(self, data, filename, binary=True):
        path = os.path.join(self.cache_dir, filename)
        with open(path, "wb" if binary else "w") as f:
            f.write(data)
        return path


def get_cache_manager(key):
    import importlib

    manager = os.environ.get("TRITON_CACHE_MANAGER")
    cls = FileCacheManager
    if manager:
        module, name = manager.split(":")
        cls = getattr(importlib.import_module(module), name)
    return cls(_base32(key))
