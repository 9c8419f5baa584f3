"""A call's model: an onnx.ModelProto, bytes, or a path. Paths go to
libqopt as they are (the model and its external data are read from
there, never copied); bytes and a ModelProto are written once into the
call's private folder."""
import os

# A protobuf message cannot be serialized past 2 GiB: such a ModelProto
# is saved with its tensors as external data.
_PROTO_LIMIT = 2**31 - 1


def _is_model_proto(model):
    t = type(model)
    return t.__name__ == "ModelProto" and hasattr(model, "SerializeToString")


def input_path(model, tmp, who):
    """The path libqopt reads the model from."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.exists(path):
            raise FileNotFoundError("%s: model file '%s' not found" %
                                    (who, path))
        if os.path.isdir(path):
            raise IsADirectoryError("%s: model '%s' is a folder, not an "
                                    "ONNX file" % (who, path))
        return path
    path = os.path.join(tmp, "model.onnx")
    if isinstance(model, (bytes, bytearray, memoryview)):
        with open(path, "wb") as f:
            f.write(model)
        return path
    if _is_model_proto(model):
        import onnx
        if model.ByteSize() > _PROTO_LIMIT:
            onnx.save_model(model, path, save_as_external_data=True,
                            location="model.onnx.data")
        else:
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
        return path
    raise TypeError("%s: model must be an onnx.ModelProto, bytes or a path, "
                    "not %s" % (who, type(model).__name__))


def load_output(path):
    """The model libqopt wrote at path, external data read in."""
    import onnx
    return onnx.load(path)
