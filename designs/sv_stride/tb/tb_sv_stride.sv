`timescale 1ns/1ps
// Self-checking testbench for sv_stride: directed stride runs, pauses, stride changes, wrap-around,
// random addresses and a mid-run reset, every cycle compared with a behavioural model.
module tb_sv_stride;
    localparam int AW = 12;
    logic          clk = 1'b0, rst_n = 1'b0, valid = 1'b0;
    logic [AW-1:0] addr = '0;
    logic [AW-1:0] stride, predict;
    logic [1:0]    conf;
    logic          hit;

    sv_stride dut (.clk(clk), .rst_n(rst_n), .valid(valid), .addr(addr), .stride(stride), .conf(conf),
                   .hit(hit), .predict(predict));

    always #5 clk = ~clk;

    // the model: how many addresses seen (0, 1, 2 or more), the last one, the stride and its confidence
    integer        seen, m_conf, errors, cycle, run, step;
    reg [AW-1:0]   m_last, m_stride, m_delta, m_predict, base;
    reg            m_hit;

    task automatic model_reset;
        begin
            seen = 0; m_last = 0; m_stride = 0; m_conf = 0;
        end
    endtask

    task automatic model_step(input v, input [AW-1:0] a);
        begin
            if (v) begin
                m_delta = a - m_last;
                if (seen == 1) begin
                    m_stride = m_delta; m_conf = 0;
                end else if (seen >= 2) begin
                    if (m_delta == m_stride) m_conf = (m_conf < 3) ? m_conf + 1 : 3;
                    else begin m_stride = m_delta; m_conf = 0; end
                end
                m_last = a;
                seen = (seen < 2) ? seen + 1 : 2;
            end
        end
    endtask

    task automatic check;
        begin
            m_hit = seen >= 2 && m_conf >= 2;
            m_predict = m_hit ? m_last + m_stride : 0;
            if (stride !== m_stride || conf !== m_conf[1:0] || hit !== m_hit || predict !== m_predict) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH cycle %0d: stride=%h conf=%0d hit=%b predict=%h expected %h %0d %b %h",
                             cycle, stride, conf, hit, predict, m_stride, m_conf, m_hit, m_predict);
            end
        end
    endtask

    // one clock cycle with the given inputs; the model follows, then outputs are compared
    task automatic drive(input v, input [AW-1:0] a);
        begin
            valid = v; addr = a;
            @(posedge clk);
            model_step(v, a);
            #1;
            cycle = cycle + 1;
            check;
        end
    endtask

    initial begin
        errors = 0; cycle = 0;
        model_reset;
        repeat (2) @(posedge clk);
        #1 check;
        rst_n = 1'b1;
        // constant strides, some with pauses, one wrapping around the address space
        for (run = 0; run < 8; run = run + 1) begin
            base = $random & 12'hfff;
            for (step = 0; step < 7; step = step + 1) begin
                drive(1'b1, base + step * (run * 37 + 1));
                if (run % 3 == 1) drive(1'b0, $random);
            end
        end
        for (step = 0; step < 8; step = step + 1) drive(1'b1, 12'hffc + step * 3);
        // stride changes after a hit, then back
        for (step = 0; step < 12; step = step + 1) drive(1'b1, 12'h100 + step * (step < 6 ? 4 : 8));
        // random addresses and random valid
        for (step = 0; step < 200; step = step + 1) drive($random & 1, (step % 5 == 0) ? $random : addr + 16);
        // a reset in the middle of a run, then a fresh run
        for (step = 0; step < 5; step = step + 1) drive(1'b1, 12'h040 + step * 2);
        rst_n = 1'b0;
        #1 model_reset;
        check;
        @(posedge clk);
        #1 rst_n = 1'b1;
        for (step = 0; step < 6; step = step + 1) drive(1'b1, 12'h800 - step * 5);
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
