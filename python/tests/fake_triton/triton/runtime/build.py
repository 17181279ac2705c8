import hashlib
import sysconfig

from .cache import get_cache_manager

built = []


def platform_key():
    return "x86_64,Linux,64bit,ELF"


def compile_module_from_src(
    src, name, library_dirs=None, include_dirs=None, libraries=None, ccflags=None
):
    key = hashlib.sha256((src + platform_key()).encode("utf-8")).hexdigest()
    cache = get_cache_manager(key)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")  # as Triton names its modules
    path = cache.get_file(name + suffix)
    if path is None:
        built.append(name)
        path = cache.put(b"module:" + src.encode(), name + suffix, binary=True)
    return path
