# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing,
# software distributed under the License is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
# KIND, either express or implied.  See the License for the
# specific language governing permissions and limitations
# under the License.
# ruff: noqa
"""TVM v0.13's gallery/tutorial/tensor_expr_get_started.py, its vector-add half (CPU: build,
time, parallelize, vectorize, save an object file, link it with `cc.create_shared`, load it,
export one library), run as TVM wrote it with `import xtvm as tvm`. The whole tutorial,
matrix multiplication included, runs with `python` the same way (`run_cuda = False`).
"""


def test_tensor_expr_get_started_vector_add():
    import xtvm as tvm
    import xtvm as tvm
    from xtvm import te
    import numpy as np

    ################################################################################
    # You will get better performance if you can identify the CPU you are targeting
    # and specify it. If you're using LLVM, you can get this information from the
    # command ``llc --version`` to get the CPU type, and you can check
    # ``/proc/cpuinfo`` for additional extensions that your processor might
    # support. For example, you can use ``llvm -mcpu=skylake-avx512`` for CPUs with
    # AVX-512 instructions.

    tgt = tvm.target.Target(target="llvm", host="llvm")

    ################################################################################
    # Describing the Vector Computation
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # We describe a vector addition computation. TVM adopts tensor semantics, with
    # each intermediate result represented as a multi-dimensional array. The user
    # needs to describe the computation rule that generates the tensors. We first
    # define a symbolic variable ``n`` to represent the shape. We then define two
    # placeholder Tensors, ``A`` and ``B``, with given shape ``(n,)``. We then
    # describe the result tensor ``C``, with a ``compute`` operation. The
    # ``compute`` defines a computation, with the output conforming to the
    # specified tensor shape and the computation to be performed at each position
    # in the tensor defined by the lambda function. Note that while ``n`` is a
    # variable, it defines a consistent shape between the ``A``, ``B`` and ``C``
    # tensors. Remember, no actual computation happens during this phase, as we
    # are only declaring how the computation should be done.

    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")

    ################################################################################
    # .. admonition:: Lambda Functions
    #
    #   The second argument to the ``te.compute`` method is the function that
    #   performs the computation. In this example, we're using an anonymous function,
    #   also known as a ``lambda`` function, to define the computation, in this case
    #   addition on the ``i``\th element of ``A`` and ``B``.

    ################################################################################
    # Create a Default Schedule for the Computation
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    #
    # While the above lines describe the computation rule, we can compute ``C`` in
    # many different ways to fit different devices. For a tensor with multiple
    # axes, you can choose which axis to iterate over first, or computations can be
    # split across different threads. TVM requires that the user to provide a
    # schedule, which is a description of how the computation should be performed.
    # Scheduling operations within TE can change loop orders, split computations
    # across different threads, and group blocks of data together, amongst other
    # operations. An important concept behind schedules is that they only describe
    # how the computation is performed, so different schedules for the same TE will
    # produce the same result.
    #
    # TVM allows you to create a naive schedule that will compute ``C`` in by
    # iterating in row major order.
    #
    # .. code-block:: c
    #
    #   for (int i = 0; i < n; ++i) {
    #     C[i] = A[i] + B[i];
    #   }

    s = te.create_schedule(C.op)

    ######################################################################
    # Compile and Evaluate the Default Schedule
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # With the TE expression and a schedule, we can produce runnable code for our
    # target language and architecture, in this case LLVM and a CPU. We provide
    # TVM with the schedule, a list of the TE expressions that are in the schedule,
    # the target and host, and the name of the function we are producing. The result
    # of the output is a type-erased function that can be called directly from Python.
    #
    # In the following line, we use ``tvm.build`` to create a function. The build
    # function takes the schedule, the desired signature of the function (including
    # the inputs and outputs) as well as target language we want to compile to.

    fadd = tvm.build(s, [A, B, C], tgt, name="myadd")

    ################################################################################
    # Let's run the function, and compare the output to the same computation in
    # numpy. The compiled TVM function exposes a concise C API that can be invoked
    # from any language. We begin by creating a device, which is a device (CPU in this
    # example) that TVM can compile the schedule to. In this case the device is an
    # LLVM CPU target. We can then initialize the tensors in our device and
    # perform the custom addition operation. To verify that the computation is
    # correct, we can compare the result of the output of the c tensor to the same
    # computation performed by numpy.

    dev = tvm.device(tgt.kind.name, 0)

    n = 1024
    a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
    b = tvm.nd.array(np.random.uniform(size=n).astype(B.dtype), dev)
    c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)
    fadd(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

    ################################################################################
    # To get a comparison of how fast this version is compared to numpy, create a
    # helper function to run a profile of the TVM generated code.
    import timeit

    np_repeat = 100
    np_running_time = timeit.timeit(
        setup="import numpy\n"
        "n = 32768\n"
        'dtype = "float32"\n'
        "a = numpy.random.rand(n, 1).astype(dtype)\n"
        "b = numpy.random.rand(n, 1).astype(dtype)\n",
        stmt="answer = a + b",
        number=np_repeat,
    )
    print("Numpy running time: %f" % (np_running_time / np_repeat))

    def evaluate_addition(func, target, optimization, log):
        dev = tvm.device(target.kind.name, 0)
        n = 32768
        a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
        b = tvm.nd.array(np.random.uniform(size=n).astype(B.dtype), dev)
        c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)

        evaluator = func.time_evaluator(func.entry_name, dev, number=10)
        mean_time = evaluator(a, b, c).mean
        print("%s: %f" % (optimization, mean_time))

        log.append((optimization, mean_time))

    log = [("numpy", np_running_time / np_repeat)]
    evaluate_addition(fadd, tgt, "naive", log=log)

    ################################################################################
    # Updating the Schedule to Use Parallelism
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    #
    # Now that we've illustrated the fundamentals of TE, let's go deeper into what
    # schedules do, and how they can be used to optimize tensor expressions for
    # different architectures. A schedule is a series of steps that are applied to
    # an expression to transform it in a number of different ways. When a schedule
    # is applied to an expression in TE, the inputs and outputs remain the same,
    # but when compiled the implementation of the expression can change. This
    # tensor addition, in the default schedule, is run serially but is easy to
    # parallelize across all of the processor threads. We can apply the parallel
    # schedule operation to our computation.

    s[C].parallel(C.op.axis[0])

    ################################################################################
    # The ``tvm.lower`` command will generate the Intermediate Representation (IR)
    # of the TE, with the corresponding schedule. By lowering the expression as we
    # apply different schedule operations, we can see the effect of scheduling on
    # the ordering of the computation. We use the flag ``simple_mode=True`` to
    # return a readable C-style statement.

    print(tvm.lower(s, [A, B, C], simple_mode=True))

    ################################################################################
    # It's now possible for TVM to run these blocks on independent threads. Let's
    # compile and run this new schedule with the parallel operation applied:

    fadd_parallel = tvm.build(s, [A, B, C], tgt, name="myadd_parallel")
    fadd_parallel(a, b, c)

    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

    evaluate_addition(fadd_parallel, tgt, "parallel", log=log)

    ################################################################################
    # Updating the Schedule to Use Vectorization
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # Modern CPUs also have the ability to perform SIMD operations on floating
    # point values, and we can apply another schedule to our computation expression
    # to take advantage of this. Accomplishing this requires multiple steps: first
    # we have to split the schedule into inner and outer loops using the split
    # scheduling primitive. The inner loops can use vectorization to use SIMD
    # instructions using the vectorize scheduling primitive, then the outer loops
    # can be parallelized using the parallel scheduling primitive. Choose the split
    # factor to be the number of threads on your CPU.

    # Recreate the schedule, since we modified it with the parallel operation in
    # the previous example
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")

    s = te.create_schedule(C.op)

    # This factor should be chosen to match the number of threads appropriate for
    # your CPU. This will vary depending on architecture, but a good rule is
    # setting this factor to equal the number of available CPU cores.
    factor = 4

    outer, inner = s[C].split(C.op.axis[0], factor=factor)
    s[C].parallel(outer)
    s[C].vectorize(inner)

    fadd_vector = tvm.build(s, [A, B, C], tgt, name="myadd_parallel")

    evaluate_addition(fadd_vector, tgt, "vector", log=log)

    print(tvm.lower(s, [A, B, C], simple_mode=True))

    ################################################################################
    # Comparing the Different Schedules
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # We can now compare the different schedules

    baseline = log[0][1]
    print("%s\t%s\t%s" % ("Operator".rjust(20), "Timing".rjust(20), "Performance".rjust(20)))
    for result in log:
        print(
            "%s\t%s\t%s"
            % (result[0].rjust(20), str(result[1]).rjust(20), str(result[1] / baseline).rjust(20))
        )

    ################################################################################
    # .. admonition:: Code Specialization
    #
    #   As you may have noticed, the declarations of ``A``, ``B`` and ``C`` all
    #   take the same shape argument, ``n``. TVM will take advantage of this to
    #   pass only a single shape argument to the kernel, as you will find in the
    #   printed device code. This is one form of specialization.
    #
    #   On the host side, TVM will automatically generate check code that checks
    #   the constraints in the parameters. So if you pass arrays with different
    #   shapes into fadd, an error will be raised.
    #
    #   We can do more specializations. For example, we can write :code:`n =
    #   tvm.runtime.convert(1024)` instead of :code:`n = te.var("n")`, in the
    #   computation declaration. The generated function will only take vectors with
    #   length 1024.

    ################################################################################
    # We've defined, scheduled, and compiled a vector addition operator, which we
    # were then able to execute on the TVM runtime. We can save the operator as a
    # library, which we can then load later using the TVM runtime.

    ################################################################################
    # Targeting Vector Addition for GPUs (Optional)
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # TVM is capable of targeting multiple architectures. In the next example, we
    # will target compilation of the vector addition to GPUs.

    # If you want to run this code, change ``run_cuda = True``
    # Note that by default this example is not run in the docs CI.

    run_cuda = False
    if run_cuda:
        # Change this target to the correct backend for you gpu. For example: cuda (NVIDIA GPUs),
        # rocm (Radeon GPUS), OpenCL (opencl).
        tgt_gpu = tvm.target.Target(target="cuda", host="llvm")

        # Recreate the schedule
        n = te.var("n")
        A = te.placeholder((n,), name="A")
        B = te.placeholder((n,), name="B")
        C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
        print(type(C))

        s = te.create_schedule(C.op)

        bx, tx = s[C].split(C.op.axis[0], factor=64)

        ################################################################################
        # Finally we must bind the iteration axis bx and tx to threads in the GPU
        # compute grid. The naive schedule is not valid for GPUs, and these are
        # specific constructs that allow us to generate code that runs on a GPU.

        s[C].bind(bx, te.thread_axis("blockIdx.x"))
        s[C].bind(tx, te.thread_axis("threadIdx.x"))

        ######################################################################
        # Compilation
        # -----------
        # After we have finished specifying the schedule, we can compile it
        # into a TVM function. By default TVM compiles into a type-erased
        # function that can be directly called from the python side.
        #
        # In the following line, we use tvm.build to create a function.
        # The build function takes the schedule, the desired signature of the
        # function (including the inputs and outputs) as well as target language
        # we want to compile to.
        #
        # The result of compilation fadd is a GPU device function (if GPU is
        # involved) as well as a host wrapper that calls into the GPU
        # function. fadd is the generated host wrapper function, it contains
        # a reference to the generated device function internally.

        fadd = tvm.build(s, [A, B, C], target=tgt_gpu, name="myadd")

        ################################################################################
        # The compiled TVM function exposes a concise C API that can be invoked from
        # any language.
        #
        # We provide a minimal array API in python to aid quick testing and prototyping.
        # The array API is based on the `DLPack <https://github.com/dmlc/dlpack>`_ standard.
        #
        # - We first create a GPU device.
        # - Then tvm.nd.array copies the data to the GPU.
        # - ``fadd`` runs the actual computation
        # - ``numpy()`` copies the GPU array back to the CPU (so we can verify correctness).
        #
        # Note that copying the data to and from the memory on the GPU is a required step.

        dev = tvm.device(tgt_gpu.kind.name, 0)

        n = 1024
        a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
        b = tvm.nd.array(np.random.uniform(size=n).astype(B.dtype), dev)
        c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)
        fadd(a, b, c)
        tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

        ################################################################################
        # Inspect the Generated GPU Code
        # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        # You can inspect the generated code in TVM. The result of tvm.build is a TVM
        # Module. fadd is the host module that contains the host wrapper, it also
        # contains a device module for the CUDA (GPU) function.
        #
        # The following code fetches the device module and prints the content code.

        if (
            tgt_gpu.kind.name == "cuda"
            or tgt_gpu.kind.name == "rocm"
            or tgt_gpu.kind.name.startswith("opencl")
        ):
            dev_module = fadd.imported_modules[0]
            print("-----GPU code-----")
            print(dev_module.get_source())
        else:
            print(fadd.get_source())

    ################################################################################
    # Saving and Loading Compiled Modules
    # -----------------------------------
    # Besides runtime compilation, we can save the compiled modules into a file and
    # load them back later.
    #
    # The following code first performs the following steps:
    #
    # - It saves the compiled host module into an object file.
    # - Then it saves the device module into a ptx file.
    # - cc.create_shared calls a compiler (gcc) to create a shared library

    from xtvm.contrib import cc
    from xtvm.contrib import utils

    temp = utils.tempdir()
    fadd.save(temp.relpath("myadd.o"))
    if tgt.kind.name == "cuda":
        fadd.imported_modules[0].save(temp.relpath("myadd.ptx"))
    if tgt.kind.name == "rocm":
        fadd.imported_modules[0].save(temp.relpath("myadd.hsaco"))
    if tgt.kind.name.startswith("opencl"):
        fadd.imported_modules[0].save(temp.relpath("myadd.cl"))
    cc.create_shared(temp.relpath("myadd.so"), [temp.relpath("myadd.o")])
    print(temp.listdir())

    ################################################################################
    # .. admonition:: Module Storage Format
    #
    #   The CPU (host) module is directly saved as a shared library (.so). There
    #   can be multiple customized formats of the device code. In our example, the
    #   device code is stored in ptx, as well as a meta data json file. They can be
    #   loaded and linked separately via import.

    ################################################################################
    # Load Compiled Module
    # ~~~~~~~~~~~~~~~~~~~~
    # We can load the compiled module from the file system and run the code. The
    # following code loads the host and device module separately and links them
    # together. We can verify that the newly loaded function works.

    fadd1 = tvm.runtime.load_module(temp.relpath("myadd.so"))
    if tgt.kind.name == "cuda":
        fadd1_dev = tvm.runtime.load_module(temp.relpath("myadd.ptx"))
        fadd1.import_module(fadd1_dev)

    if tgt.kind.name == "rocm":
        fadd1_dev = tvm.runtime.load_module(temp.relpath("myadd.hsaco"))
        fadd1.import_module(fadd1_dev)

    if tgt.kind.name.startswith("opencl"):
        fadd1_dev = tvm.runtime.load_module(temp.relpath("myadd.cl"))
        fadd1.import_module(fadd1_dev)

    fadd1(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

    ################################################################################
    # Pack Everything into One Library
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # In the above example, we store the device and host code separately. TVM also
    # supports export everything as one shared library. Under the hood, we pack
    # the device modules into binary blobs and link them together with the host
    # code. Currently we support packing of Metal, OpenCL and CUDA modules.

    fadd.export_library(temp.relpath("myadd_pack.so"))
    fadd2 = tvm.runtime.load_module(temp.relpath("myadd_pack.so"))
    fadd2(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
