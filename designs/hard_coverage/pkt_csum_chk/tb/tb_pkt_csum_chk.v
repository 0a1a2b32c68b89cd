`timescale 1ns/1ps
// Self-checking testbench for pkt_csum_chk. A model is stepped at each rising edge and
// every output is compared each cycle. The directed part reaches every functional bin of
// coverage.yaml: a stray byte, two back-to-back good packets of length 1, good packets of
// lengths 3, 7 and 12 (one with a 15-cycle gap that is not yet a timeout), bad checksums
// at lengths 1, 6 and 12, bad lengths 0, 13 and 255, a timeout in each of the length,
// payload and checksum states; then 600 random packets (good, corrupted,
// cut short) with random gaps and stray bytes, and a few resets.
module tb_pkt_csum_chk;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        in_valid;
    reg  [7:0] in_data;
    wire       pkt_ok, pkt_err;
    wire [1:0] err_code;
    wire [7:0] len, ok_cnt;
    wire [3:0] pay_cnt, gap;

    pkt_csum_chk dut (.clk(clk), .rst_n(rst_n), .in_valid(in_valid), .in_data(in_data),
                      .pkt_ok(pkt_ok), .pkt_err(pkt_err), .err_code(err_code), .len(len),
                      .pay_cnt(pay_cnt), .gap(gap), .ok_cnt(ok_cnt));

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

    // model: state 0 hunt, 1 length, 2 payload, 3 checksum
    integer m_state, m_sum, m_len, m_cnt, m_gap, m_code, m_okc;
    reg     m_ok, m_err;
    integer errors, n, k, n_ok, n_bad;
    integer p_sum;

    task check;
        begin
            if (pkt_ok !== m_ok || pkt_err !== m_err || err_code !== m_code[1:0] || len !== m_len[7:0] ||
                pay_cnt !== m_cnt[3:0] || gap !== m_gap[3:0] || ok_cnt !== m_okc[7:0]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: ok=%b err=%b code=%0d len=%0d cnt=%0d gap=%0d okc=%0d expected %b %b %0d %0d %0d %0d %0d",
                             $time, pkt_ok, pkt_err, err_code, len, pay_cnt, gap, ok_cnt,
                             m_ok, m_err, m_code, m_len, m_cnt, m_gap, m_okc);
            end
        end
    endtask

    task model_reset;
        begin
            m_state = 0; m_sum = 0; m_len = 0; m_cnt = 0; m_gap = 0; m_code = 0; m_okc = 0;
            m_ok = 0; m_err = 0;
        end
    endtask

    task model_step;
        begin
            m_ok = 0; m_err = 0;
            if (!in_valid) begin
                if (m_state != 0) begin
                    if (m_gap == 15) begin
                        m_state = 0; m_gap = 0; m_err = 1; m_code = 3;
                    end else
                        m_gap = m_gap + 1;
                end
            end else begin
                m_gap = 0;
                case (m_state)
                    0: if (in_data == 8'hB6) m_state = 1;
                       else begin m_err = 1; m_code = 0; end
                    1: begin
                        m_len = in_data;
                        if (in_data == 0 || in_data > 12) begin
                            m_state = 0; m_err = 1; m_code = 1;
                        end else begin
                            m_state = 2; m_sum = in_data; m_cnt = 0;
                        end
                    end
                    2: begin
                        m_sum = (m_sum + in_data) % 256;
                        m_cnt = m_cnt + 1;
                        if (m_cnt == m_len) m_state = 3;
                    end
                    default: begin
                        m_state = 0;
                        if ((m_sum + in_data) % 256 == 0) begin
                            m_ok = 1; n_ok = n_ok + 1;
                            if (m_okc != 255) m_okc = m_okc + 1;
                        end else begin
                            m_err = 1; m_code = 2; n_bad = n_bad + 1;
                        end
                    end
                endcase
            end
        end
    endtask

    task cycle;
        input v; input [7:0] d;
        begin
            @(negedge clk);
            check;
            in_valid = v; in_data = d;
            @(posedge clk);
            model_step;
        end
    endtask

    task gaps;
        input integer c;
        integer j;
        begin
            for (j = 0; j < c; j = j + 1) cycle(1'b0, urand(0));
        end
    endtask

    // a packet of length l (the length byte itself is l); csum_ok = 0 corrupts the
    // checksum; before each byte after the magic a gap of 0..max_gap cycles, except the
    // gap of exactly long_gap cycles before the payload byte number long_at (-1: none)
    task packet;
        input integer l; input csum_ok; input integer max_gap; input integer long_at; input integer long_gap;
        integer j, b;
        begin
            cycle(1'b1, 8'hB6);
            gaps(max_gap == 0 ? 0 : urand(0) % (max_gap + 1));
            cycle(1'b1, l);
            p_sum = l;
            for (j = 0; j < l; j = j + 1) begin
                if (j == long_at) gaps(long_gap);
                else gaps(max_gap == 0 ? 0 : urand(0) % (max_gap + 1));
                b = urand(0) % 256;
                p_sum = (p_sum + b) % 256;
                cycle(1'b1, b);
            end
            gaps(max_gap == 0 ? 0 : urand(0) % (max_gap + 1));
            cycle(1'b1, csum_ok ? (256 - p_sum) % 256 : (257 + urand(0) % 255 - p_sum) % 256);
        end
    endtask

    initial begin
        errors = 0; n_ok = 0; n_bad = 0;
        seed = 32'h0B6C_5A11;
        in_valid = 0; in_data = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        cycle(1, 8'h00);                           // stray byte: bad magic
        packet(1, 1, 0, -1, 0); packet(1, 1, 0, -1, 0);   // two good packets back to back
        packet(3, 1, 2, -1, 0);
        packet(7, 1, 3, 4, 9);                     // gap of 9 in the payload
        packet(12, 1, 1, 5, 15);                   // gap of 15: one short of a timeout
        packet(1, 0, 0, -1, 0);                    // bad checksums
        packet(6, 0, 1, -1, 0);
        packet(12, 0, 0, -1, 0);
        cycle(1, 8'hB6); cycle(1, 8'd0);           // bad lengths 0, 13, 255
        cycle(1, 8'hB6); cycle(1, 8'd13);
        cycle(1, 8'hB6); gaps(3); cycle(1, 8'd255);
        cycle(1, 8'hB6); gaps(16);                 // timeout waiting for the length
        cycle(1, 8'hB6); cycle(1, 8'd4); cycle(1, 8'd1); cycle(1, 8'd2); gaps(16);   // in the payload
        cycle(1, 8'hB6); cycle(1, 8'd2); cycle(1, 8'd1); cycle(1, 8'd2); gaps(20);   // at the checksum
        packet(2, 1, 0, -1, 0); packet(5, 1, 0, -1, 0); packet(9, 1, 2, -1, 0);
        for (n = 0; n < 600; n = n + 1) begin
            k = urand(0) % 20;
            if (k < 11)       packet(1 + urand(0) % 12, 1, (urand(0) % 4 == 0) ? 6 : 1, -1, 0);
            else if (k < 13)  packet(1 + urand(0) % 12, 0, 2, -1, 0);
            else if (k < 14)  begin cycle(1, 8'hB6); cycle(1, (urand(0) % 2) ? 8'd0 : 13 + urand(0) % 243); end
            else if (k < 15)  packet(1 + urand(0) % 12, 1, 2, urand(0) % 12, 10 + urand(0) % 10);
            else if (k < 16)  begin cycle(1, 8'hB6); gaps(urand(0) % 20); end
            else              cycle(urand(0) % 2, urand(0));
            if (urand(0) % 150 == 0) begin
                @(negedge clk); check; in_valid = 0;
                rst_n = 1'b0;
                #1 model_reset;
                check;
                @(posedge clk); #1 rst_n = 1'b1;
            end
        end
        @(negedge clk);
        check;
        if (n_ok < 50 || n_bad < 10) begin
            $display("coverage: good packets=%0d bad checksums=%0d", n_ok, n_bad);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d good packets, %0d bad checksums)", n_ok, n_bad);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
