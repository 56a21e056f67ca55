"""`relay.testing`'s benchmark workloads: each is the published network (its parameter count
matches the reference implementation's), is typed, and reads back from its Relay text."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm as tvm
from xtvm.api.relay import testing

# (workload, arguments, output shape, parameters): torchvision's parameter counts where it
# has the network (inception_v3's without its auxiliary classifier); the DQN's is Mnih et
# al.'s; DCGAN's that of its dense layer and 4 deconvolutions
CASES = [
    (testing.resnet, {}, (1, 1000), 11_689_512),
    (testing.resnet, {"num_layers": 50}, (1, 1000), 25_557_032),
    (testing.mobilenet, {}, (1, 1000), 4_231_976),
    (testing.squeezenet, {"version": "1.0"}, (1, 1000), 1_248_424),
    (testing.squeezenet, {"version": "1.1"}, (1, 1000), 1_235_496),
    (testing.densenet, {"batch_size": 1}, (1, 1000), 7_978_856),
    (testing.dqn, {}, (1, 18), 1_693_362),
    (testing.dcgan, {"batch_size": 1}, (1, 3, 64, 64), 12_656_384),
    (testing.inception_v3, {}, (1, 1000), 23_834_568),
]


@pytest.mark.parametrize(("workload", "kwargs", "oshape", "count"), CASES)
def test_workload(workload, kwargs, oshape, count) -> None:
    mod, params = workload.get_workload(**kwargs)
    main = mod["main"]
    assert tuple(main.checked_type.ret_type.concrete_shape) == oshape
    # every parameter but the input has a weight of its type, each its own name
    names = [p.name_hint for p in main.params]
    assert len(set(names)) == len(names) and set(names) == {"data", *params}
    for p in main.params[1:]:
        assert params[p.name_hint].shape == tuple(p.checked_type.concrete_shape)
    # batch-norm running statistics are state, not learned parameters
    learned = [v for k, v in params.items() if not k.endswith(("moving_mean", "moving_var"))]
    assert abs(sum(int(np.prod(v.shape)) for v in learned) - count) <= count * 1e-3
    # the Relay text reads back as the same function
    assert tvm.ir.structural_equal(tvm.parser.parse(mod.astext())["main"], main)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="no ImageNet ResNet has 19 layers"):
        testing.resnet.get_workload(num_layers=19)
    with pytest.raises(ValueError, match=r"SqueezeNet version '2\.0'"):
        testing.squeezenet.get_workload(version="2.0")
    with pytest.raises(ValueError, match="no DenseNet-100"):
        testing.densenet.get_workload(densenet_size=100)
    with pytest.raises(ValueError, match="64x64 images"):
        testing.dcgan.get_workload(1, oshape=(3, 32, 32))


def test_concatenate_prints_a_tuple() -> None:
    """TVM's concatenate takes one tuple: `concatenate((%x, %y), axis=1)` (not flattened,
    which would read `%y` back as the axis)."""
    x = tvm.relay.var("x", shape=(1, 2))
    y = tvm.relay.var("y", shape=(1, 2))
    mod = tvm.IRModule.from_expr(tvm.relay.Function([x, y], tvm.relay.concatenate([x, y], 1)))
    assert "concatenate((%x, %y), axis=1)" in mod.astext()
    assert tvm.ir.structural_equal(tvm.parser.parse(mod.astext())["main"], mod["main"])


def test_untyped_conv2d_transpose_weight() -> None:
    """Like TVM's Conv2DTransposeRel: an untyped IOHW weight is (in, channels / groups, kh, kw)."""
    data = tvm.relay.var("data", shape=(1, 8, 5, 5))
    w = tvm.relay.var("w")
    out = tvm.relay.nn.conv2d_transpose(data, w, channels=6, kernel_size=(3, 3), groups=2)
    assert tuple(w.checked_type.concrete_shape) == (8, 3, 3, 3)
    assert tuple(out.checked_type.concrete_shape) == (1, 6, 7, 7)


def test_lstm() -> None:
    """Each step calls its own cell function on a fresh `data` input, as TVM's workload."""
    mod, params = testing.lstm.get_workload(3, 8)
    main = mod["main"]
    assert [p.name_hint for p in main.params].count("data") == 3
    assert sorted(params) == sorted(
        f"{layer}_{i}_{kind}"
        for i in range(3)
        for layer in ("i2h", "h2h")
        for kind in ("weight", "bias")
    )
    assert params["i2h_0_weight"].shape == (32, 8)
    assert tuple(main.checked_type.ret_type.concrete_shape) == (1, 8)
    assert tvm.ir.structural_equal(tvm.parser.parse(mod.astext())["main"], main)


def test_filled_constants_print_as_ops() -> None:
    """A constant of zeros or ones prints as TVM's `zeros`/`ones` call (no meta reference)."""
    expr = tvm.relay.add(tvm.relay.zeros((2, 3), "float32"), tvm.relay.ones((2, 3), "float32"))
    text = expr.astext()
    assert 'zeros(shape=[2, 3], dtype="float32")' in text and "meta" not in text
    assert tvm.ir.structural_equal(tvm.relay.parse_expr(text), expr)
