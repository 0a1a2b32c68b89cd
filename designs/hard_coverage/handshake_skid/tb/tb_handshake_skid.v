`timescale 1ns/1ps
// Self-checking testbench for handshake_skid: directed stalls (a stall longer
// than STALL_N, ready toggling every cycle, skid fill and drain) then 3000
// cycles of random valid/ready with phases of different densities, plus
// asynchronous resets. A cycle-accurate model of the two registers checks
// every output each cycle, and a scoreboard checks that the words leave in
// the order they were accepted, none lost or duplicated.
module tb_handshake_skid;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        in_valid, out_ready;
    reg  [7:0] in_data;
    wire       in_ready, out_valid, stall_flag;
    wire [7:0] out_data, xfer_count;
    wire [1:0] occupancy;

    handshake_skid dut (.clk(clk), .rst_n(rst_n), .in_valid(in_valid), .in_data(in_data),
                        .in_ready(in_ready), .out_valid(out_valid), .out_data(out_data),
                        .out_ready(out_ready), .occupancy(occupancy), .stall_flag(stall_flag),
                        .xfer_count(xfer_count));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    // model state
    reg       m_ov, m_sv;
    reg [7:0] m_od, m_sd, m_xfer;
    integer   m_stall;
    // scoreboard: words accepted, words delivered
    reg [7:0] q [0:255];
    integer   wr_i, rd_i;
    integer   errors, n, r, dv, dr, stalls_seen, fulls_seen;

    task model_reset;
        begin
            m_ov = 0; m_sv = 0; m_od = 0; m_sd = 0; m_xfer = 0; m_stall = 0;
            wr_i = 0; rd_i = 0;
        end
    endtask

    task check;
        begin
            if (in_ready !== ~m_sv || out_valid !== m_ov || (m_ov && out_data !== m_od) ||
                occupancy !== (m_ov + m_sv) || stall_flag !== (m_stall >= 20) || xfer_count !== m_xfer) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: rdy=%b ov=%b od=%h occ=%0d sf=%b xc=%0d; expected %b %b %h %0d %b %0d",
                             $time, in_ready, out_valid, out_data, occupancy, stall_flag, xfer_count,
                             ~m_sv, m_ov, m_od, m_ov + m_sv, m_stall >= 20, m_xfer);
            end
        end
    endtask

    // one clock: inputs are set before the edge; the model steps at the edge
    task step;
        input iv; input [7:0] id; input ordy;
        begin
            @(negedge clk);
            check;
            in_valid = iv; in_data = id; out_ready = ordy;
            @(posedge clk);
            if (m_ov && ordy) begin
                if (q[rd_i[7:0]] !== m_od) begin
                    errors = errors + 1;
                    $display("ORDER t=%0t: delivered %h expected %h", $time, m_od, q[rd_i[7:0]]);
                end
                rd_i = rd_i + 1; m_xfer = m_xfer + 1;
            end
            if (iv && !m_sv) begin q[wr_i[7:0]] = id; wr_i = wr_i + 1; end
            if (m_ov && !ordy) begin if (m_stall < 31) m_stall = m_stall + 1; end
            else m_stall = 0;
            if (m_sv) begin
                if (ordy) begin m_od = m_sd; m_sv = 0; end
            end else if (m_ov && !ordy) begin
                if (iv) begin m_sd = id; m_sv = 1; end
            end else begin
                m_ov = iv; if (iv) m_od = id;
            end
            if (m_sv) fulls_seen = fulls_seen + 1;
            if (m_stall >= 20) stalls_seen = stalls_seen + 1;
        end
    endtask

    initial begin
        errors = 0; stalls_seen = 0; fulls_seen = 0;
        seed = 32'h5EED_5C1D;
        in_valid = 0; in_data = 0; out_ready = 0;
        rst_n = 0; model_reset;
        #12 rst_n = 1;
        // a long stall with upstream still valid
        for (n = 0; n < 30; n = n + 1) step(1, n[7:0], 0);
        // ready toggling every cycle while upstream streams
        for (n = 0; n < 20; n = n + 1) step(1, 8'h40 + n[7:0], n[0]);
        // drain, then stream at full rate
        for (n = 0; n < 300; n = n + 1) step(1, n[7:0], 1);
        for (n = 0; n < 4; n = n + 1) step(0, 0, 1);
        for (n = 0; n < 3000; n = n + 1) begin
            dv = 20 + ((n / 300) % 4) * 25;
            dr = 95 - ((n / 450) % 4) * 25;
            r = urand(0) % 100;
            step((urand(0) % 100) < dv, urand(0), r < dr);
            if ((urand(0) % 700) == 0) begin
                @(negedge clk); in_valid = 0; out_ready = 0;
                #2 rst_n = 0; #1 model_reset; check; #1 rst_n = 1;
            end
        end
        @(negedge clk); check;
        if (stalls_seen == 0 || fulls_seen < 50) begin
            $display("coverage: stalls %0d, skid full %0d", stalls_seen, fulls_seen);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
